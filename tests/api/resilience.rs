//! An admin API that is down, comes back, lies, or is not an admin API at all.

use std::net::SocketAddr;

use llmgw_console::simulator::Simulator;

use crate::helpers::{ScriptedUpstream, TestApp, fetch_page, http, spawn_console, spawn_simulator};

#[tokio::test]
async fn an_unreachable_admin_api_gives_a_whole_page_naming_the_address() {
    let console = spawn_console("127.0.0.1:1").await;
    let response = http()
        .get(format!("{console}/nodes"))
        .send()
        .await
        .expect("answers");
    assert_eq!(response.status(), 200);
    let html = response.text().await.expect("body");
    assert!(html.contains("<html"), "a whole page");
    assert!(html.contains("cannot be reached"), "{html}");
    assert!(html.contains("http://127.0.0.1:1"), "names the address");
    assert!(html.contains("admin_listen"), "gives the likely cause");
    assert!(
        !html.contains("No nodes have registered"),
        "never an empty cluster"
    );
}

#[tokio::test]
async fn the_console_recovers_by_itself_when_the_admin_api_comes_back() {
    let port = crate::helpers::free_port();
    let console = spawn_console(&format!("127.0.0.1:{port}")).await;
    let down = http()
        .get(format!("{console}/nodes"))
        .send()
        .await
        .expect("answers");
    assert!(
        down.text()
            .await
            .expect("body")
            .contains("cannot be reached")
    );

    spawn_simulator(Simulator::demo(), SocketAddr::from(([127, 0, 0, 1], port)));
    let up = http()
        .get(format!("{console}/nodes"))
        .send()
        .await
        .expect("answers");
    let html = up.text().await.expect("body");
    assert!(html.contains("data-node=\"gpu-h100-01\""), "{html}");
}

#[tokio::test]
async fn an_answer_that_is_not_the_contract_is_reported_not_shown_as_data() {
    let upstream = ScriptedUpstream::spawn(200, "text/html", b"<html>login</html>".to_vec()).await;
    let console = spawn_console(&upstream.address).await;
    let html = fetch_page(&console, "/nodes").await;
    assert!(html.contains("cannot read"), "{html}");
    assert!(html.contains("not JSON"), "{html}");
}

#[tokio::test]
async fn an_error_status_is_shown_with_the_servers_own_words() {
    let upstream = ScriptedUpstream::spawn(
        503,
        "application/json",
        br#"{"error":"control plane is electing a leader"}"#.to_vec(),
    )
    .await;
    let console = spawn_console(&upstream.address).await;
    let html = fetch_page(&console, "/nodes").await;
    assert!(html.contains("503 Service Unavailable"), "{html}");
    assert!(
        html.contains("control plane is electing a leader"),
        "{html}"
    );
}

#[tokio::test]
async fn the_operator_named_by_the_proxy_is_sent_as_the_actor() {
    let upstream = ScriptedUpstream::spawn(200, "application/json", b"[]".to_vec()).await;
    let console = spawn_console(&upstream.address).await;
    let client = http();
    client
        .get(format!("{console}/nodes"))
        .header("x-forwarded-user", "ana@ops")
        .send()
        .await
        .expect("answers");
    assert_eq!(
        upstream.last_header("x-llmgw-actor").as_deref(),
        Some("ana@ops")
    );
    client
        .get(format!("{console}/nodes"))
        .send()
        .await
        .expect("answers");
    assert_eq!(
        upstream.last_header("x-llmgw-actor").as_deref(),
        Some("llmgw-console (127.0.0.1)"),
        "never blank without a proxy"
    );
}

#[tokio::test]
async fn an_empty_cluster_says_so() {
    let upstream = ScriptedUpstream::spawn(200, "application/json", b"null".to_vec()).await;
    let console = spawn_console(&upstream.address).await;
    let html = fetch_page(&console, "/nodes").await;
    assert!(html.contains("No nodes have registered"), "{html}");
}

#[tokio::test]
async fn hostile_requests_are_refused_without_harm() {
    let app = TestApp::spawn().await;
    let huge = "x".repeat(1024 * 1024);
    let response = app
        .http
        .post(format!("{}/api/list_nodes", app.console))
        .body(huge)
        .send()
        .await
        .expect("answers");
    assert_eq!(response.status(), 413);
    let response = app.get("/nodes").await;
    assert_eq!(response.headers()["x-content-type-options"], "nosniff");
    assert!(
        response.headers()["content-security-policy"]
            .to_str()
            .expect("ascii")
            .contains("frame-ancestors 'none'")
    );
}
