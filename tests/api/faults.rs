//! Each way an admin API fails, switched on in the simulator and met over
//! real HTTP: the page says what is wrong in words an operator can act on,
//! answers within the console's timeout, and recovers by itself once the
//! fault clears.

use std::time::{Duration, Instant};

use app::admin_api::client::REQUEST_TIMEOUT;
use llmgw_console::simulator::faults::Fault;

use crate::helpers::TestApp;

/// A little more than the test console's refresh period, for which one
/// answer (or failure) of the admin API is shared.
const PERIOD: Duration = Duration::from_millis(1100);
use crate::html::Page;

/// The nodes page during `fault`, how long it took, and the page after.
async fn through(fault: Fault) -> (Page, Duration, Page) {
    let app = TestApp::spawn().await;
    app.simulator
        .faults()
        .set_delay(REQUEST_TIMEOUT + Duration::from_secs(5));
    app.simulator.faults().set(fault, None);
    let started = Instant::now();
    let during = app.parsed("/nodes").await;
    let took = started.elapsed();
    app.simulator.faults().set(Fault::None, None);
    // Recovery is the console's own: no restart, just the next request (a
    // stopped listener takes a moment to listen again).
    let mut after = app.parsed("/nodes").await;
    for _ in 0..40 {
        if after.has("tr[data-node]") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        after = app.parsed("/nodes").await;
    }
    (during, took, after)
}

async fn says(fault: Fault, words: &[&str]) {
    let (during, took, after) = through(fault).await;
    let panel = during.text(".error-panel");
    for w in words {
        assert!(panel.contains(w), "{fault:?}: {w:?} not in {panel:?}");
    }
    assert!(during.has("header nav"), "{fault:?}: a whole page");
    assert!(
        !during.has("tr[data-node]"),
        "{fault:?}: nothing shown as data"
    );
    assert!(
        took < REQUEST_TIMEOUT + Duration::from_secs(3),
        "{fault:?}: answered after {took:?}"
    );
    assert!(after.has("tr[data-node]"), "{fault:?}: recovered");
    assert!(!after.has(".error-panel"), "{fault:?}: recovered");
}

#[tokio::test]
async fn down() {
    says(Fault::Down, &["cannot be reached", "admin_listen"]).await;
}

#[tokio::test]
async fn refusing_connections() {
    says(Fault::Refusing, &["cannot be reached"]).await;
}

#[tokio::test]
async fn slower_than_the_timeout() {
    says(Fault::Slow, &["no answer within 15 seconds"]).await;
}

#[tokio::test]
async fn a_500_with_the_envelope() {
    says(
        Fault::ErrorEnvelope,
        &["500", "the control plane's store is unavailable"],
    )
    .await;
}

#[tokio::test]
async fn a_500_without_the_envelope() {
    says(Fault::ErrorPlain, &["500", "upstream connect error"]).await;
}

#[tokio::test]
async fn invalid_json() {
    says(
        Fault::InvalidJson,
        &["cannot read", "not an llmgw admin API"],
    )
    .await;
}

#[tokio::test]
async fn a_body_past_the_cap() {
    says(Fault::Oversized, &["larger than 64 MiB"]).await;
}

#[tokio::test]
async fn flapping_never_shows_an_error_as_data() {
    let app = TestApp::spawn().await;
    app.simulator.faults().set(Fault::Flapping, None);
    let (mut failed, mut served) = (0, 0);
    for _ in 0..4 {
        // One answer is shared for a period; the next period asks again.
        tokio::time::sleep(PERIOD).await;
        let page = app.parsed("/nodes").await;
        if page.has(".error-panel") {
            assert!(!page.has("tr[data-node]"));
            failed += 1;
        } else {
            assert!(page.has("tr[data-node]"));
            served += 1;
        }
    }
    assert!(failed > 0 && served > 0, "{failed} failed, {served} served");
}

#[tokio::test]
async fn a_fault_clears_by_itself_and_readiness_follows() {
    let app = TestApp::spawn().await;
    app.simulator
        .faults()
        .set(Fault::Down, Some(Duration::from_secs(2)));
    // Ready was never confirmed, so readiness asks, and is told no.
    assert_eq!(app.get("/readyz").await.status(), 503);
    tokio::time::sleep(Duration::from_millis(2300)).await;
    assert_eq!(app.get("/readyz").await.status(), 200);
    assert!(app.parsed("/nodes").await.has("tr[data-node]"));
}

#[tokio::test]
async fn a_node_page_whose_explanations_partly_failed_says_what_is_missing() {
    let app = TestApp::spawn().await;
    let lists = app.lists();
    let shown = |e: &&app::admin_api::types::ExplainView| {
        lists
            .models
            .iter()
            .any(|m| m.name == e.model && app::server::rejection_index::worth_explaining(m))
    };
    let (node, model) = lists
        .explains
        .iter()
        .filter(shown)
        .find_map(|e| {
            e.rejections
                .first()
                .map(|r| (r.node.clone(), e.model.clone()))
        })
        .expect("a rejection");
    let faults = app.simulator.faults();
    faults.set(Fault::ErrorEnvelope, None);
    // Encoded as the console's client encodes it.
    let mut explain = reqwest::Url::parse("http://x/api/v1/explain-placement").expect("url");
    explain.query_pairs_mut().append_pair("model", &model);
    faults.only(Some(format!(
        "{}?{}",
        explain.path(),
        explain.query().unwrap_or("")
    )));
    let page = app.settled_page(&app::urls::node(&node)).await;
    let warning = page.text(".partial");
    assert!(warning.starts_with("Incomplete"), "{warning}");
    assert!(warning.contains(&model), "{warning}");
    assert!(warning.contains("500"), "{warning}");
    faults.set(Fault::None, None);
    tokio::time::sleep(PERIOD).await;
    let page = app.settled_page(&app::urls::node(&node)).await;
    assert!(!page.has(".partial"));
}
