//! Every table as CSV and JSON: the whole list its view shows, with the
//! page's filter and sort, linked from the page, and never a formula or an
//! empty file where the admin API failed.

use std::time::Instant;

use llmgw_console::simulator::{Simulator, generated};

use crate::support::helpers::{TestApp, free_port, get, settings, spawn_console_with};
use crate::support::html::Page;

/// The CSV's records, header first, read by RFC 4180's rules.
fn records(csv: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let (mut row, mut field, mut quoted, mut chars) =
        (Vec::new(), String::new(), false, csv.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => row.push(std::mem::take(&mut field)),
            ('\n', false) => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (c, _) => field.push(c),
        }
    }
    rows
}

async fn download(app: &TestApp, path: &str) -> (String, String, String) {
    let response = app.get(path).await;
    assert_eq!(response.status(), 200, "{path}");
    let kind = response.headers()["content-type"]
        .to_str()
        .expect("ascii")
        .to_string();
    let disposition = response.headers()["content-disposition"]
        .to_str()
        .expect("ascii")
        .to_string();
    (kind, disposition, response.text().await.expect("body"))
}

#[tokio::test]
async fn every_table_page_gives_its_rows_as_csv_and_json() {
    let app = TestApp::spawn().await;
    app.cordon("gpu-h100-01").await;
    let lists = app.lists();
    for (page, rows, key) in [
        ("/nodes", lists.nodes.len(), "node"),
        ("/models", lists.models.len(), "model"),
        ("/replicas", lists.replicas.len(), "replica"),
        ("/weights", lists.orphans.len(), "node"),
        // One row per attempt, as the page shows them.
        (
            "/audit",
            app::audit_record::one_per_attempt(app.context_audit()).len(),
            "attempt",
        ),
    ] {
        let (kind, disposition, csv) = download(&app, &format!("{page}?format=csv")).await;
        assert!(kind.starts_with("text/csv"), "{page}: {kind}");
        assert_eq!(
            disposition,
            format!("attachment; filename=\"default-{}.csv\"", &page[1..])
        );
        let table = records(&csv);
        assert_eq!(table[0][0], key, "{page}: {csv}");
        assert_eq!(table.len() - 1, rows, "{page}: every row, not one page");
        assert!(table.iter().all(|r| r.len() == table[0].len()), "{page}");

        let (kind, _, json) = download(&app, &format!("{page}?format=json")).await;
        assert_eq!(kind, "application/json");
        let json: serde_json::Value = serde_json::from_str(&json).expect("JSON");
        assert_eq!(json.as_array().map(Vec::len), Some(rows), "{page}");

        // The page links to both, with its view.
        let html = Page::parse(&app.page(&format!("{page}?q=a&sort=state")).await);
        let links = html.hrefs(".downloads a");
        assert_eq!(links.len(), 2, "{page}");
        assert!(
            links[0].starts_with(&format!("/c/default{page}?")),
            "{links:?}"
        );
        assert!(
            links[0].contains("q=a") && links[0].ends_with("format=csv"),
            "{links:?}"
        );
    }
}

#[tokio::test]
async fn a_download_has_the_pages_filter_and_sort_and_every_page_of_it() {
    let sim = Simulator::built_by(|| generated::build(450, 10, 7));
    let app = TestApp::spawn_on(sim, |_| {}).await;
    let lists = app.lists();
    let (_, _, csv) = download(&app, "/nodes?state=ready&sort=gpus&desc=1&format=csv").await;
    let table = records(&csv);
    let header = &table[0];
    let col = |name: &str| header.iter().position(|h| h == name).expect("a column");
    let ready = lists
        .nodes
        .iter()
        .filter(|n| n.state.as_str() == "ready")
        .count();
    assert!(ready > 100, "more than one page of them");
    assert_eq!(table.len() - 1, ready);
    assert!(table[1..].iter().all(|r| r[col("state")] == "ready"));
    let free: Vec<i64> = table[1..]
        .iter()
        .map(|r| r[col("gpus_free")].parse().expect("a number"))
        .collect();
    assert!(
        free.windows(2).all(|w| w[0] >= w[1]),
        "sorted as the page is"
    );
}

#[tokio::test]
async fn a_hostile_name_is_inert_in_a_spreadsheet_and_exact_in_json() {
    let sim = Simulator::demo();
    let app = TestApp::spawn_on(sim.clone(), |_| {}).await;
    let hostile = "=HYPERLINK(\"http://evil.example\",\"click\")";
    {
        let mut cluster = sim.cluster();
        let node = cluster.nodes.first_mut().expect("a node");
        node.unhealthy = vec![hostile.to_string(), "+1, \"quoted\"\nline".to_string()];
    }
    // After the shared lists' period.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let (_, _, csv) = download(&app, "/nodes?format=csv").await;
    let table = records(&csv);
    let col = table[0]
        .iter()
        .position(|h| h == "unhealthy")
        .expect("column");
    let cell = table
        .iter()
        .find(|r| r[col].contains("HYPERLINK"))
        .map(|r| r[col].clone())
        .expect("the row");
    assert!(cell.starts_with("'="), "{cell}");
    assert!(
        cell.contains("+1, \"quoted\"\nline"),
        "quoted, not cut: {cell}"
    );
    let (_, _, json) = download(&app, "/nodes?format=json").await;
    let json: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let exact = json
        .as_array()
        .expect("rows")
        .iter()
        .filter_map(|row| row["unhealthy"].as_str())
        .any(|cell| cell.starts_with(hostile));
    assert!(exact, "JSON is data, not a spreadsheet: the name as it is");
}

#[tokio::test]
async fn an_unknown_format_and_a_failing_admin_api_are_said_not_written() {
    let app = TestApp::spawn().await;
    let bad = app.get("/nodes?format=xlsx").await;
    assert_eq!(bad.status(), 400);
    assert!(
        bad.text()
            .await
            .expect("body")
            .contains("format=csv or format=json")
    );

    // A link someone else crafted: a cluster this console does not show,
    // and a filter of 64 KiB.
    let elsewhere = app.get("/c/nope/nodes?format=csv").await;
    assert_eq!(elsewhere.status(), 404);
    assert!(!elsewhere.headers().contains_key("content-disposition"));
    let huge = format!("/nodes?format=csv&q={}", "h100+".repeat(13_000));
    let (_, _, csv) = download(&app, &huge).await;
    let rows = records(&csv);
    assert!(
        rows.len() > 1,
        "the filter is bounded, and finds the H100 nodes"
    );
    assert!(rows[1..].iter().all(|r| r[0].contains("h100")));

    let console = spawn_console_with(settings(), &format!("http://127.0.0.1:{}", free_port()));
    let down = get(&format!("{console}/c/default/nodes?format=csv"), &[]).await;
    assert_eq!(down.status(), 502);
    assert!(down.text().await.expect("body").contains("cannot reach"));
}

/// The budget of the issue: at 5,000 nodes the CSV of /nodes is made in
/// well under 100 ms on the server. Measured by `make bench`; here only
/// that it is whole at that size.
#[tokio::test]
async fn five_thousand_nodes_are_one_whole_file() {
    let sim = Simulator::built_by(|| generated::build(5_000, 50, 3));
    let app = TestApp::spawn_on(sim, |_| {}).await;
    let started = Instant::now();
    let (_, _, csv) = download(&app, "/nodes?format=csv").await;
    assert_eq!(records(&csv).len(), 5_001, "after {:?}", started.elapsed());
}
