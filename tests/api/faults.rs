//! Each way an admin API fails, switched on in the simulator and met over
//! real HTTP: the page says what is wrong in words an operator can act on,
//! answers within the console's timeout, and recovers by itself once the
//! fault clears.

use std::time::{Duration, Instant};

use app::server::admin_client::client::REQUEST_TIMEOUT;
use llmgw_console::simulator::faults::Fault;

use crate::support::helpers::TestApp;
use crate::support::poll::until_within;

/// A little more than the test console's refresh period, for which one
/// answer (or failure) of the admin API is shared.
const PERIOD: Duration = Duration::from_millis(1100);
use crate::support::html::Page;

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
    // Given a few tries, not waited for: a read still hanging from the
    // fault may hold the rows back, and each caller says what it needs.
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
async fn slower_than_a_page_waits() {
    // Never read before: nothing to show in its place, so the page says
    // why after a second instead of a white screen for the whole timeout.
    let (during, took, _) = through(Fault::Slow).await;
    assert!(took < Duration::from_secs(2), "a first page took {took:?}");
    assert!(
        during
            .text(".error-panel")
            .contains("has not answered in 1 s"),
        "{}",
        during.text(".error-panel")
    );
}

/// The nodes page read once, then read again a period later during
/// `fault`: at once, with the rows last read, marked stale with their age
/// under what failed; the tab's title and icon say the admin API is
/// unreachable. Then the fault clears and the page is current again.
async fn kept_through(fault: Fault, words: &[&str]) {
    let app = TestApp::spawn().await;
    app.simulator
        .faults()
        .set_delay(REQUEST_TIMEOUT + Duration::from_secs(5));
    let before = app.parsed("/nodes").await;
    let rows = before.row_keys("data-node");
    assert!(!rows.is_empty());
    assert!(!before.has(".live-status.stale"));
    tokio::time::sleep(PERIOD).await;
    app.simulator.faults().set(fault, None);
    for attempt in 0..2 {
        let started = Instant::now();
        let during = app.parsed("/nodes").await;
        let took = started.elapsed();
        assert!(
            took < Duration::from_secs(2),
            "{fault:?}, read {attempt}: {took:?}"
        );
        assert_eq!(
            during.row_keys("data-node"),
            rows,
            "{fault:?}: the rows last read"
        );
        assert_eq!(
            during.all(".stale-data tr[data-node]").len(),
            rows.len(),
            "{fault:?}: every row is under the stale mark"
        );
        let banner = during.text(".stale-banner .error-panel");
        for w in words {
            assert!(banner.contains(w), "{fault:?}: {w:?} not in {banner:?}");
        }
        let status = during.one(".live-status.stale");
        let age: u64 = status
            .value()
            .attr("data-age")
            .and_then(|a| a.parse().ok())
            .expect("the data's age");
        let failing: u64 = status
            .value()
            .attr("data-failing")
            .and_then(|a| a.parse().ok())
            .expect("how long reads have failed");
        // The figures are true: the rows were read a period and more ago,
        // and reads have failed for no longer than that.
        assert!((1..10).contains(&age), "{fault:?}: data {age} s old");
        assert!(
            failing <= age,
            "{fault:?}: failing for {failing} s, data {age} s old"
        );
        let line = crate::support::html::text(status);
        assert!(
            line.contains(&format!("showing data from {age} s ago")),
            "{fault:?}: {line:?}"
        );
        assert!(
            during.text("title").contains("unreachable"),
            "{fault:?}: {}",
            during.text("title")
        );
        assert!(
            during.has("link[rel='icon'][href='/favicon-unreachable.svg']"),
            "{fault:?}: the icon"
        );
    }
    app.simulator.faults().set(Fault::None, None);
    let what = format!("{fault:?}: current again");
    // A read the fault left hanging ends at the admin API's timeout.
    let after = until_within(REQUEST_TIMEOUT * 2, &what, async || {
        let page = app.parsed("/nodes").await;
        (!page.has(".live-status.stale")).then_some(page)
    })
    .await;
    assert!(!after.text("title").contains("unreachable"));
    assert_eq!(after.row_keys("data-node"), rows);
}

#[tokio::test]
async fn a_hanging_admin_api_leaves_the_last_rows_on_a_fresh_page() {
    kept_through(Fault::Slow, &["has not answered in"]).await;
}

#[tokio::test]
async fn an_admin_api_that_refuses_connections_leaves_the_last_rows_on_a_fresh_page() {
    kept_through(Fault::Down, &["cannot be reached", "admin_listen"]).await;
}

#[tokio::test]
async fn an_admin_api_that_answers_500_leaves_the_last_rows_on_a_fresh_page() {
    kept_through(Fault::ErrorEnvelope, &["500"]).await;
}

#[tokio::test]
async fn data_asked_for_as_data_is_never_the_last_good_answer() {
    let app = TestApp::spawn().await;
    assert!(app.parsed("/nodes").await.has("tr[data-node]"));
    // An answer, not a stopped listener: a connection kept alive from
    // before could still be answered. A period after, every answer read
    // before it is a period old.
    app.simulator.faults().set(Fault::ErrorEnvelope, None);
    // The lists' last good answer may have landed just after, read by the
    // journal's poll a moment before: within its period it is still news.
    let mut status = 0;
    for _ in 0..10 {
        tokio::time::sleep(PERIOD / 2).await;
        status = app.server_fn("list_nodes", &[]).await.status().as_u16();
        if status != 200 {
            break;
        }
    }
    assert_eq!(status, 502, "the admin API's own word");
    let export = app.get("/nodes?format=json").await;
    assert_eq!(export.status(), 502, "an export is never stale data");
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
            // The rows last read, if any, only under the stale mark.
            assert_eq!(
                page.all("tr[data-node]").len(),
                page.all(".stale-data tr[data-node]").len()
            );
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
