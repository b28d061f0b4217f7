//! Every change is enforced on the server: confirmation, one-time tokens
//! bound to exactly what was previewed, read-only mode.

use std::sync::Arc;
use std::time::Duration;

use app::confirmations::Confirmations;
use app::server_fns::weights::CollectPreview;

use crate::helpers::TestApp;

async fn preview(app: &TestApp, node: &str) -> CollectPreview {
    let response = app.server_fn("preview_collect", &[("node", node)]).await;
    assert_eq!(response.status(), 200);
    response.json().await.expect("a preview")
}

async fn collect(app: &TestApp, node: &str, token: &str) -> reqwest::Response {
    app.server_fn(
        "collect_weights",
        &[("node", node), ("token", token), ("back", "/weights")],
    )
    .await
}

fn orphan_count(app: &TestApp) -> usize {
    app.simulator
        .cluster()
        .list_orphans(std::time::Instant::now())
        .len()
}

/// The error a refused server function sends, as the page would show it.
async fn refusal(response: reqwest::Response) -> String {
    assert!(!response.status().is_success(), "expected a refusal");
    response.text().await.expect("body")
}

#[tokio::test]
async fn a_confirmed_collection_goes_through_once_and_reports_each_node() {
    let app = TestApp::spawn().await;
    let before = orphan_count(&app);
    let p = preview(&app, "").await;
    assert_eq!(p.files, 7);
    assert!(p.bytes > 0);
    let response = collect(&app, "", &p.token).await;
    assert!(response.status().is_success(), "{}", response.status());
    let location = response.headers()["serverfnredirect"]
        .to_str()
        .map(|_| ())
        .ok();
    let _ = location;
    // Only the refusing node keeps its files.
    assert_eq!(orphan_count(&app), 1);
    assert!(before > 1);
    let again = refusal(collect(&app, "", &p.token).await).await;
    assert!(again.contains("ConfirmationStale"), "{again}");
    let audit = app.simulator.audit();
    assert_eq!(audit.len(), 1, "{audit:?}");
    assert!(audit[0].actor.starts_with("llmgw-console"), "{audit:?}");
}

#[tokio::test]
async fn collect_without_a_token_is_refused() {
    let app = TestApp::spawn().await;
    let body = refusal(collect(&app, "", "").await).await;
    assert!(body.contains("ConfirmationStale"), "{body}");
    let body = refusal(app.server_fn("collect_weights", &[("node", "")]).await).await;
    assert!(
        body.contains("token") || body.contains("BadRequest"),
        "{body}"
    );
    assert!(
        app.simulator.audit().is_empty(),
        "nothing reached the admin API"
    );
}

#[tokio::test]
async fn an_expired_token_is_refused() {
    let app = TestApp::spawn_with(|cx| {
        cx.confirmations = Arc::new(Confirmations::new(Duration::from_millis(200)));
    })
    .await;
    let p = preview(&app, "gpu-h100-01").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let body = refusal(collect(&app, "gpu-h100-01", &p.token).await).await;
    assert!(body.contains("expired"), "{body}");
    assert!(app.simulator.audit().is_empty());
}

#[tokio::test]
async fn a_token_for_a_list_that_changed_is_refused() {
    let app = TestApp::spawn().await;
    let p = preview(&app, "").await;
    // Someone else collects one node in the meantime.
    app.simulator
        .cluster()
        .collect(std::time::Instant::now(), "someone else", "gpu-a100-01")
        .expect("collects");
    let body = refusal(collect(&app, "", &p.token).await).await;
    assert!(body.contains("ListChanged"), "{body}");
    assert_eq!(app.simulator.audit().len(), 1, "only the other operator's");
}

#[tokio::test]
async fn a_token_for_one_node_does_not_collect_every_node() {
    let app = TestApp::spawn().await;
    let p = preview(&app, "gpu-h100-01").await;
    let body = refusal(collect(&app, "", &p.token).await).await;
    assert!(body.contains("another node"), "{body}");
}

#[tokio::test]
async fn cordon_and_drain_need_a_confirmation_uncordon_does_not() {
    let app = TestApp::spawn().await;
    let body = refusal(
        app.server_fn(
            "set_node_state",
            &[("node", "gpu-l40s-01"), ("state", "draining")],
        )
        .await,
    )
    .await;
    assert!(body.contains("ConfirmationMissing"), "{body}");
    let ok = app
        .server_fn(
            "set_node_state",
            &[
                ("node", "gpu-l40s-01"),
                ("state", "cordoned"),
                ("confirm", "yes"),
            ],
        )
        .await;
    assert!(ok.status().is_success());
    let ok = app
        .server_fn(
            "set_node_state",
            &[("node", "gpu-l40s-01"), ("state", "ready")],
        )
        .await;
    assert!(ok.status().is_success());
    let audit = app.simulator.audit();
    assert_eq!(audit.len(), 2, "{audit:?}");
}

#[tokio::test]
async fn a_read_only_console_refuses_every_change() {
    let app = TestApp::spawn_with(|cx| cx.ui.read_only = true).await;
    for (name, form) in [
        (
            "set_node_state",
            vec![("node", "gpu-l40s-01"), ("state", "ready")],
        ),
        ("preview_collect", vec![("node", "")]),
        ("collect_weights", vec![("node", ""), ("token", "x")]),
    ] {
        let body = refusal(app.server_fn(name, &form).await).await;
        assert!(body.contains("ReadOnly"), "{name}: {body}");
    }
    assert!(app.simulator.audit().is_empty());
    let html = app.page("/nodes").await;
    assert!(
        !html.contains(">Drain<"),
        "no buttons on a read-only console"
    );
}

#[tokio::test]
async fn a_form_posted_without_javascript_returns_to_the_page_with_its_receipt() {
    let app = TestApp::spawn().await;
    let response = app
        .post_form_without_js(
            "set_node_state",
            &[
                ("node", "gpu-l40s-03"),
                ("state", "draining"),
                ("confirm", "yes"),
                ("back", "/nodes?q=l40s&confirm=drain&node=gpu-l40s-03"),
            ],
        )
        .await;
    assert_eq!(response.status(), 302);
    let location = response.headers()["location"]
        .to_str()
        .expect("ascii")
        .to_string();
    assert!(location.starts_with("/nodes?q=l40s&receipt="), "{location}");
    let html = app.page(&location).await;
    assert!(html.contains("Drain gpu-l40s-03"), "the receipt is shown");
    assert!(html.contains("gpu-l40s-03 is now draining"), "{html}");
}

#[tokio::test]
async fn an_action_the_admin_api_refuses_shows_its_message_verbatim() {
    let app = TestApp::spawn().await;
    let response = app
        .post_form_without_js(
            "set_node_state",
            &[
                ("node", "no-such-node"),
                ("state", "ready"),
                ("back", "/nodes"),
            ],
        )
        .await;
    let location = response.headers()["location"]
        .to_str()
        .expect("ascii")
        .to_string();
    let html = app.page(&location).await;
    assert!(html.contains("Uncordon no-such-node"), "{html}");
    assert!(
        html.contains("404 Not Found: node &quot;no-such-node&quot; not found")
            || html.contains("404 Not Found: node \"no-such-node\" not found"),
        "{html}"
    );
}
