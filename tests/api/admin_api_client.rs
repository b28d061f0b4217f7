//! The client against the simulator: what the simulator serves decodes, and
//! every way a call fails becomes the right error.

use app::admin_api::AdminApiError;
use app::admin_api::types::{NodeState, TargetState};
use app::server::admin_client::{Actor, AdminApiClient, ChangeAuthorized};

use crate::support::helpers::{ScriptedUpstream, TestApp, free_port};

fn actor() -> Actor {
    crate::support::helpers::actor("integration-test")
}

fn authorized() -> ChangeAuthorized {
    crate::support::helpers::authorized("integration-test")
}

#[tokio::test]
async fn every_endpoint_the_simulator_serves_decodes() {
    let app = TestApp::spawn().await;
    let client = AdminApiClient::new(&app.admin_api).expect("valid");
    let a = actor();
    assert!(client.list_nodes(&a).await.expect("nodes").len() >= 12);
    let models = client.list_models(&a).await.expect("models");
    assert!(models.iter().any(|m| m.name == "qwen2.5:7b"));
    assert!(
        !client
            .list_replicas(&a, None)
            .await
            .expect("replicas")
            .is_empty()
    );
    let llama = client
        .list_replicas(&a, Some("meta-llama/Llama-3.1-70B-Instruct"))
        .await
        .expect("replicas");
    assert_eq!(llama.len(), 2);
    assert!(
        llama.iter().any(|r| r.shards.len() == 2),
        "a multi-node replica"
    );
    for name in [
        "meta-llama/Llama-3.1-70B-Instruct",
        "qwen2.5:7b",
        "acme/support bot:v2",
    ] {
        let e = client.explain_placement(&a, name).await.expect("explains");
        assert_eq!(e.model, name);
    }
    assert!(!client.list_orphans(&a).await.expect("orphans").is_empty());
    let change = client
        .set_node_state(
            &authorized(),
            "gpu-l40s-04.rack7.dc-west",
            TargetState::Cordoned,
        )
        .await
        .expect("changes");
    assert_eq!(change.state, NodeState::Cordoned);
    let results = client
        .collect_weights(&authorized(), Some("gpu-l40s-02"))
        .await
        .expect("collects");
    assert_eq!(results.len(), 1);
    let audit = app.simulator.audit();
    assert!(
        audit.iter().all(|e| e.actor == "integration-test"),
        "{audit:?}"
    );
}

#[tokio::test]
async fn server_refusals_carry_status_line_and_message() {
    let app = TestApp::spawn().await;
    let client = AdminApiClient::new(&app.admin_api).expect("valid");
    let err = client
        .explain_placement(&actor(), "no/such:model")
        .await
        .expect_err("unknown model");
    assert_eq!(
        err.to_string(),
        "the llmgw admin API answered 404 Not Found: model \"no/such:model\" is not in the catalog"
    );
    assert_eq!(
        err.http_status(),
        404,
        "the admin API's own judgement passes through"
    );
    let err = client
        .set_node_state(&authorized(), "../../etc", TargetState::Ready)
        .await
        .expect_err("unknown node");
    assert!(
        matches!(err, AdminApiError::Status { ref status, .. } if status == "404 Not Found"),
        "{err}"
    );
}

#[tokio::test]
async fn an_unreachable_api_names_the_address() {
    let port = free_port();
    let client = AdminApiClient::new(&format!("127.0.0.1:{port}")).expect("valid");
    let err = client
        .list_nodes(&actor())
        .await
        .expect_err("nothing listens");
    match err {
        AdminApiError::Unreachable { address, cause } => {
            assert_eq!(address, format!("http://127.0.0.1:{port}"));
            assert!(cause.to_lowercase().contains("refused"), "{cause}");
        }
        other => panic!("expected Unreachable, got {other:?}"),
    }
}

#[tokio::test]
async fn go_field_names_from_a_real_server_decode() {
    let upstream = ScriptedUpstream::spawn(
        200,
        "application/json",
        br#"[{"ID":"n1","State":"ready","GPUFree":1,"GPUTotal":2,"Classes":null,"Fabrics":["pcie"],"Unhealthy":null,"LastSeenAgo":"1s","Future":true}]"#.to_vec(),
    )
    .await;
    let client = AdminApiClient::new(&upstream.address).expect("valid");
    let nodes = client.list_nodes(&actor()).await.expect("decodes");
    assert_eq!(nodes[0].id, "n1");
    assert_eq!(nodes[0].gpu_total, 2);
    assert_eq!(nodes[0].fabrics, vec!["pcie".to_string()]);
}

#[tokio::test]
async fn a_non_json_error_body_becomes_the_message_trimmed_and_capped() {
    let mut body = b"   upstream proxy says no\n".to_vec();
    body.extend(vec![b'x'; 10_000]);
    let upstream = ScriptedUpstream::spawn(502, "text/plain", body).await;
    let client = AdminApiClient::new(&upstream.address).expect("valid");
    match client.list_models(&actor()).await.expect_err("502") {
        AdminApiError::Status {
            code,
            status,
            message,
        } => {
            assert_eq!((code, status.as_str()), (502, "502 Bad Gateway"));
            assert!(message.starts_with("upstream proxy says no"));
            assert!(message.len() <= 4096);
        }
        other => panic!("expected Status, got {other:?}"),
    }
}

#[tokio::test]
async fn a_wrongly_shaped_answer_is_malformed() {
    let upstream =
        ScriptedUpstream::spawn(200, "application/json", br#"{"nodes":"lots"}"#.to_vec()).await;
    let client = AdminApiClient::new(&upstream.address).expect("valid");
    let err = client.list_nodes(&actor()).await.expect_err("not a list");
    assert!(matches!(err, AdminApiError::Malformed { .. }), "{err:?}");
}

#[tokio::test]
async fn names_are_encoded_on_the_way_out() {
    let upstream = ScriptedUpstream::spawn(200, "application/json", b"{}".to_vec()).await;
    let client = AdminApiClient::new(&upstream.address).expect("valid");
    let names = [
        "meta-llama/Llama-3.1-70B-Instruct",
        "qwen2.5:7b",
        "a b&c=d#e?f",
    ];
    for name in names {
        client
            .explain_placement(&actor(), name)
            .await
            .expect("decodes");
        // A node id is a path segment: it must stay one, whatever it holds.
        let _ = client
            .set_node_state(&authorized(), name, TargetState::Ready)
            .await;
    }
    let seen = upstream.requests();
    assert_eq!(seen.len(), 2 * names.len());
    for (name, pair) in names.iter().zip(seen.chunks(2)) {
        let explain = reqwest::Url::parse(&format!("http://upstream{}", pair[0].uri)).expect("uri");
        assert_eq!(
            explain.path(),
            "/api/v1/explain-placement",
            "{}",
            pair[0].uri
        );
        let query: Vec<(String, String)> = explain.query_pairs().into_owned().collect();
        assert_eq!(
            query,
            [("model".to_string(), name.to_string())],
            "{}",
            pair[0].uri
        );

        let state = &pair[1];
        assert_eq!(state.method, axum::http::Method::POST);
        let path = state.uri.path();
        let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        assert_eq!(segments.len(), 5, "{path}");
        assert_eq!(
            (segments[0], segments[1], segments[2], segments[4]),
            ("api", "v1", "nodes", "state")
        );
        let id = percent_encoding::percent_decode_str(segments[3]).decode_utf8_lossy();
        assert_eq!(id, *name, "{path}");
        assert!(state.uri.query().is_none(), "{}", state.uri);
    }
}
