//! Where the journal is read whole: the events page's filters and pages,
//! and the wall's trends a week back.

use llmgw_journal::record::EventKind;

use crate::support::helpers::{fetch_page, http};
use crate::support::html::Page;
use crate::support::journal_steps::*;
use crate::support::poll::until;
use crate::support::process::Process;

#[tokio::test]
async fn the_events_page_filters_pages_and_says_what_it_cannot_read() {
    let simulator = Process::simulator_of(&["--nodes", "200", "--models", "20"]).await;
    let Recording {
        console,
        store,
        _dir,
        ..
    } = recording(&simulator, "journal-events").await;
    let ready = nodes_in(&simulator, "ready").await;
    assert!(ready.len() >= 150, "{}", ready.len());
    for node in &ready[..150] {
        set_state_upstream(&simulator, node, "cordoned").await;
    }
    until("150 changes are recorded", async || {
        (count(&store, EventKind::NodeState).await == 150).then_some(())
    })
    .await;

    let rows = |page: &Page| page.texts("table.events tbody tr td:nth-child(2)");
    let first = Page::parse(&fetch_page(&console.root, "/events?kind=node_state").await);
    let first_rows = rows(&first);
    assert_eq!(first_rows.len(), 100, "a page holds 100");
    let older = first
        .one("a.older")
        .value()
        .attr("href")
        .expect("a link")
        .to_string();
    let second = Page::parse(&fetch_page(&console.root, &older.replace("/c/default", "")).await);
    let second_rows = rows(&second);
    assert_eq!(second_rows.len(), 50, "the rest");
    assert!(!second.has("a.older"), "nothing older");
    let mut all: Vec<String> = first_rows.into_iter().chain(second_rows).collect();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 150, "no record twice, none missing");

    // One node's records, on the events page and in its page's history.
    let node = &ready[7];
    let of_one = Page::parse(&fetch_page(&console.root, &format!("/events?node={node}")).await);
    assert_eq!(rows(&of_one), vec![node.clone()]);
    let node_page = Page::parse(&fetch_page(&console.root, &format!("/nodes/{node}")).await);
    assert!(
        node_page
            .text("section.history")
            .contains("ready → cordoned")
    );
    let overview = Page::parse(&fetch_page(&console.root, "/").await);
    assert_eq!(
        overview.texts("section.history tbody tr").len(),
        10,
        "the last hour's newest"
    );

    // What a crafted link carries is shown as text, or said not understood.
    let crafted = fetch_page(
        &console.root,
        "/events?node=%3Cscript%3Ealert(1)%3C%2Fscript%3E&since=yesterday",
    )
    .await;
    assert!(
        !crafted.contains("<script>alert(1)"),
        "markup from a link is never markup"
    );
    let crafted = Page::parse(&crafted);
    assert!(
        crafted.text("main").contains("is not a time"),
        "{}",
        crafted.text("main")
    );
    // A typo is said, not taken for "everything".
    let typo = Page::parse(
        &fetch_page(
            &console.root,
            "/events?kind=node_sate&nod=gpu-1&before=abc&%3Cb%3E=%3Cscript%3E",
        )
        .await,
    );
    let said = typo.text("main");
    for expected in [
        "kind=\"node_sate\" is not a kind of record",
        "nod=\"gpu-1\" is not something this page filters by",
        "before=\"abc\" is not a record's number",
        "<b>=\"<script>\" is not something",
    ] {
        assert!(said.contains(expected), "{expected}: {said}");
    }
    let huge = http()
        .get(format!("{}/events?node={}", console.url, "x".repeat(4_000)))
        .send()
        .await
        .expect("answers");
    assert!(!huge.status().is_server_error(), "{}", huge.status());
    let said = Page::parse(&huge.text().await.expect("a page"));
    assert!(
        said.text("main").contains("not a name"),
        "a name longer than any is said to be none"
    );

    // A window, said in moments; the form's From and To are moments too,
    // and fill themselves back in.
    let window = Page::parse(&fetch_page(&console.root, "/events?since=1h").await);
    assert!(
        window.text("p.window").starts_with("Records from "),
        "{}",
        window.text("main")
    );
    assert!(window.text("p.window").ends_with(" to now."));
    let between = Page::parse(
        &fetch_page(
            &console.root,
            "/events?since=1h&from=2026-01-02T03:04&to=2026-01-03T00:00",
        )
        .await,
    );
    assert_eq!(
        between.text("p.window"),
        "Records from 2026-01-02 03:04 UTC to 2026-01-03 00:00 UTC."
    );
    assert_eq!(
        between.one("input[name=from]").value().attr("value"),
        Some("2026-01-02T03:04")
    );
    assert_eq!(
        between.one("input[name=to]").value().attr("value"),
        Some("2026-01-03T00:00")
    );
    assert_eq!(
        between.texts("table.events tbody tr").len(),
        0,
        "nothing was recorded then"
    );
}

#[tokio::test]
async fn the_walls_trends_reach_back_a_week_from_the_store_and_survive_a_restart() {
    let simulator = Process::simulator().await;
    let (dir, store) = journal_before_a_console("journal-trends").await;
    // A week of samples as an earlier console kept them, and one older
    // than the trends reach back.
    let now = unix_now();
    let day = 86_400;
    for (ago, trouble) in [(8 * day, 99), (6 * day, 1), (3 * day, 42), (3600, 2)] {
        let sample = llmgw_journal::Sample {
            at: now - ago,
            gpu_free: 10,
            gpu_total: 64,
            nodes_in_trouble: trouble,
            ..Default::default()
        };
        store.add_sample("default", &sample).await.expect("kept");
    }
    let data = dir.0.display().to_string();
    let console = Process::start(&console_args(&simulator, ["--data-dir", &data])).await;
    let span = until("the wall draws the stored week", async || {
        let page = Page::parse(&fetch_page(&console.root, "/wall?panels=trends").await);
        let span = page.text("[data-panel=trends] p.of");
        span.starts_with("over the last 6 d").then_some(span)
    })
    .await;
    assert!(
        !span.contains("8 d"),
        "older than a week is not drawn: {span}"
    );
    // The console that records keeps a sample of its own at once, and the
    // store is where the next console finds it.
    let kept = until("the console keeps a sample", async || {
        let kept = store
            .samples_after("default", now - 60)
            .await
            .expect("reads");
        (!kept.is_empty()).then_some(kept)
    })
    .await;
    assert!(kept.iter().all(|s| s.gpu_total > 0), "{kept:?}");
}
