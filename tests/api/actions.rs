//! Every change is enforced on the server: confirmation, signed
//! confirmations bound to exactly what was previewed, read-only mode; and
//! every refusal comes back to the page it was made on.

use std::time::Duration;

use app::admin_api::types::TargetState;
use app::error::ConsoleError;
use app::server::Confirmations;
use app::server_fns::weights::CollectPreview;

use crate::support::helpers::TestApp;

/// Asks for a preview the way the page's button does, then reads the
/// dialog it is sent to: the confirmation travels in that address.
pub async fn preview(app: &TestApp, node: &str) -> CollectPreview {
    let token = confirmation_token(app, node).await;
    let response = app
        .server_fn("review_collect", &[("node", node), ("token", &token)])
        .await;
    assert_eq!(response.status(), 200);
    response.json().await.expect("a preview")
}

pub async fn confirmation_token(app: &TestApp, node: &str) -> String {
    let response = app.server_fn("preview_collect", &[("node", node)]).await;
    assert_eq!(response.status(), 200, "{:?}", response.text().await);
    let location = response.headers()["location"].to_str().expect("ascii");
    assert!(
        location.starts_with(&format!(
            "{}/weights?confirm=collect",
            crate::support::helpers::BASE
        )),
        "{location}"
    );
    let url = reqwest::Url::parse(&format!("http://x{location}")).expect("a path");
    url.query_pairs()
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v.into_owned())
        .expect("a token in the dialog's address")
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

/// The status and the error a refused server function sends, decoded the
/// way the page decodes it.
async fn refusal(response: reqwest::Response) -> (u16, ConsoleError) {
    let status = response.status().as_u16();
    let body = response.text().await.expect("body");
    assert!(
        !(200..400).contains(&status),
        "expected a refusal, got {status}: {body}"
    );
    let error = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
    (status, error)
}

fn stale_because(error: &ConsoleError) -> &str {
    match error {
        ConsoleError::ConfirmationStale { reason } => reason,
        other => panic!("expected a stale confirmation, got {other:?}"),
    }
}

#[tokio::test]
async fn a_confirmed_collection_goes_through_once_and_reports_each_node() {
    let app = TestApp::spawn().await;
    let before = orphan_count(&app);
    let p = preview(&app, "").await;
    let listed: usize = app.lists().orphans.iter().map(|o| o.paths.len()).sum();
    assert_eq!(p.files, listed);
    assert!(p.bytes > 0);
    let response = collect(&app, "", &p.token).await;
    assert!(response.status().is_success(), "{}", response.status());
    // A client calling by fetch is sent back to where it came from, with the
    // receipt.
    let headers = response.headers();
    assert!(headers.contains_key("serverfnredirect"), "{headers:?}");
    let location = headers["location"].to_str().expect("ascii");
    assert!(
        location.starts_with("/c/default/weights?receipt="),
        "{headers:?}"
    );
    // Only the refusing node keeps its files.
    assert_eq!(orphan_count(&app), 1);
    assert!(before > 1);
    // Its files are gone from the list, so the confirmation no longer
    // matches what a second collection would ask for.
    let again = refusal(collect(&app, "", &p.token).await).await;
    assert_eq!(again, (409, ConsoleError::ListChanged));
    let audit = app.simulator.audit();
    assert_eq!(audit.len(), 1, "{audit:?}");
    assert!(audit[0].actor.starts_with("llmgw-console"), "{audit:?}");
}

#[tokio::test]
async fn collect_without_a_token_is_refused() {
    let app = TestApp::spawn().await;
    let (status, error) = refusal(collect(&app, "", "").await).await;
    assert_eq!(status, 409);
    stale_because(&error);
    let (status, error) = refusal(app.server_fn("collect_weights", &[("node", "")]).await).await;
    assert_eq!(status, 400);
    assert!(matches!(error, ConsoleError::BadRequest(_)), "{error:?}");
    assert!(
        app.simulator.audit().is_empty(),
        "nothing reached the admin API"
    );
}

#[tokio::test]
async fn an_expired_token_is_refused() {
    let app = TestApp::spawn_with(|cx| {
        // Expired the moment it is issued.
        cx.confirmations = Confirmations::new(cx.signer.clone(), Duration::ZERO);
    })
    .await;
    let token = confirmation_token(&app, "gpu-h100-01").await;
    let p = app::server_fns::weights::CollectPreview {
        token,
        ..Default::default()
    };
    let (status, error) = refusal(collect(&app, "gpu-h100-01", &p.token).await).await;
    assert_eq!(status, 409);
    assert!(stale_because(&error).contains("expired"), "{error:?}");
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
    let (status, error) = refusal(collect(&app, "", &p.token).await).await;
    assert_eq!((status, error), (409, ConsoleError::ListChanged));
    assert_eq!(app.simulator.audit().len(), 1, "only the other operator's");
}

#[tokio::test]
async fn a_token_for_one_node_does_not_collect_every_node() {
    let app = TestApp::spawn().await;
    let p = preview(&app, "gpu-h100-01").await;
    let (status, error) = refusal(collect(&app, "", &p.token).await).await;
    assert_eq!(status, 409);
    assert!(stale_because(&error).contains("another node"), "{error:?}");
}

/// Sets gpu-l40s-01 to `state`, confirmed, as its dialog does.
async fn set_confirmed(app: &TestApp, state: &str) {
    let form = [
        ("node", "gpu-l40s-01"),
        ("state", state),
        ("confirm", "yes"),
    ];
    let ok = app.server_fn("set_node_state", &form).await;
    assert!(ok.status().is_success(), "{state}: {}", ok.status());
}

#[tokio::test]
async fn every_change_of_state_needs_a_confirmation_uncordon_too() {
    let app = TestApp::spawn().await;
    for state in ["draining", "cordoned", "ready"] {
        let refused = refusal(
            app.server_fn(
                "set_node_state",
                &[("node", "gpu-l40s-01"), ("state", state)],
            )
            .await,
        )
        .await;
        assert_eq!(refused, (428, ConsoleError::ConfirmationMissing), "{state}");
    }
    assert!(app.simulator.audit().is_empty(), "nothing was sent");
    set_confirmed(&app, "cordoned").await;
    set_confirmed(&app, "ready").await;
    let audit = app.simulator.audit();
    assert_eq!(audit.len(), 2, "{audit:?}");

    // Uncordoning a draining node ends its drain, and its dialog says so.
    let dialog = async || {
        let path = "/nodes/gpu-l40s-01?confirm=uncordon&node=gpu-l40s-01";
        app.parsed(path)
            .await
            .text("section.dialog[aria-labelledby=dialog-title]")
    };
    assert!(!dialog().await.contains("ends its drain"));
    set_confirmed(&app, "draining").await;
    let text = dialog().await;
    assert!(text.contains("This ends its drain"), "{text}");
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
        let refused = refusal(app.server_fn(name, &form).await).await;
        assert_eq!(refused, (403, ConsoleError::ReadOnly), "{name}");
    }
    assert!(app.simulator.audit().is_empty());
    let page = app.parsed("/nodes").await;
    assert!(page.has("tr[data-node]"));
    assert!(
        !page.has(".node-actions"),
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
                (
                    "back",
                    "/c/default/nodes?q=l40s&confirm=drain&node=gpu-l40s-03",
                ),
            ],
        )
        .await;
    assert_eq!(response.status(), 302);
    let location = response.headers()["location"]
        .to_str()
        .expect("ascii")
        .to_string();
    assert!(
        location.starts_with("/c/default/nodes?q=l40s&receipt="),
        "{location}"
    );
    let page = app.parsed(&location).await;
    assert_eq!(page.text("section.receipt h2"), "Drain gpu-l40s-03");
    assert_eq!(
        page.texts("section.receipt li"),
        ["gpu-l40s-03 is now draining"]
    );
    // A drain has moved replicas: no undo brings them back.
    assert!(!page.has("section.receipt form.undo-form"));
}

/// Posts `state` for `node` as the dialog does, and reads the page the
/// receipt comes back to.
async fn receipt_of(app: &TestApp, node: &str, state: &str) -> crate::support::html::Page {
    let response = app
        .post_form_without_js(
            "set_node_state",
            &[
                ("node", node),
                ("state", state),
                ("confirm", "yes"),
                ("back", "/c/default/nodes?compact=1"),
            ],
        )
        .await;
    assert_eq!(response.status(), 302);
    let location = response.headers()["location"]
        .to_str()
        .expect("ascii")
        .to_string();
    app.parsed(&location).await
}

#[tokio::test]
async fn a_cordon_and_an_uncordon_offer_their_undo_on_the_receipt() {
    let app = TestApp::spawn().await;
    let node = "gpu-l40s-03";
    let page = receipt_of(&app, node, "cordoned").await;
    let undo = page.one("section.receipt form.undo-form");
    let field = |name: &str| {
        page.all(&format!(
            "section.receipt form.undo-form input[name={name}]"
        ))
        .first()
        .and_then(|i| i.value().attr("value"))
        .map(str::to_string)
    };
    assert_eq!(undo.value().attr("method"), Some("post"));
    assert_eq!(field("node").as_deref(), Some(node));
    assert_eq!(field("state").as_deref(), Some("ready"));
    assert_eq!(field("confirm").as_deref(), Some("yes"));
    assert_eq!(
        field("back").as_deref(),
        Some("/c/default/nodes?compact=1"),
        "back to the same view"
    );
    assert_eq!(
        page.text("section.receipt form.undo-form button"),
        format!("Undo: Uncordon {node} again")
    );
    // The undo is an action like any: posted, it uncordons, and offers
    // the cordon back.
    let page = receipt_of(&app, node, "ready").await;
    assert_eq!(
        page.texts("section.receipt li"),
        [format!("{node} is now ready")]
    );
    assert_eq!(
        page.text("section.receipt form.undo-form button"),
        format!("Undo: Cordon {node} again")
    );
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
                ("confirm", "yes"),
                ("back", "/c/default/nodes"),
            ],
        )
        .await;
    let location = response.headers()["location"]
        .to_str()
        .expect("ascii")
        .to_string();
    let words = app
        .simulator
        .cluster()
        .set_node_state(
            std::time::Instant::now(),
            "test",
            "no-such-node",
            TargetState::Ready,
        )
        .expect_err("no such node")
        .to_string();
    let page = app.parsed(&location).await;
    assert_eq!(
        page.text("section.receipt h2"),
        "Uncordon a node this console does not list failed",
        "a receipt names only the nodes the console lists"
    );
    assert_eq!(
        page.text("section.receipt .error-message"),
        format!("the llmgw admin API answered 404 Not Found: {words}")
    );
}

#[tokio::test]
async fn a_refusal_without_javascript_comes_back_to_the_page_it_was_made_on() {
    let app = TestApp::spawn().await;
    let node = app.lists().nodes[0].id.clone();
    let response = app
        .post_form_without_js(
            "set_node_state",
            &[
                ("node", node.as_str()),
                ("state", "draining"),
                ("back", "/c/default/nodes?q=gpu&confirm=drain"),
            ],
        )
        .await;
    assert_eq!(response.status(), 303);
    let location = response.headers()["location"]
        .to_str()
        .expect("ascii")
        .to_string();
    assert!(
        location.starts_with("/c/default/nodes?q=gpu&receipt="),
        "{location}"
    );
    assert!(!location.contains("__err"), "{location}");
    let page = app.parsed(&location).await;
    assert_eq!(
        page.text("section.receipt h2"),
        format!("Drain {node} failed")
    );
    assert_eq!(
        page.text("section.receipt .error-message"),
        ConsoleError::ConfirmationMissing.to_string()
    );
    assert!(app.simulator.audit().is_empty(), "nothing was sent");
}
