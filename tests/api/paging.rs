//! Tables that grow with the cluster are cut into pages on the server: the
//! HTML, each refresh and the browser's work stay at one page of rows,
//! however many nodes there are, and every row is on exactly one page.

use std::collections::BTreeSet;

use app::table::PAGE_ROWS;
use llmgw_console::simulator::{Simulator, generated};

use crate::support::helpers::TestApp;
use crate::support::html::Page;

const NODES: usize = 2 * PAGE_ROWS + PAGE_ROWS / 2;

async fn big_cluster() -> TestApp {
    TestApp::spawn_on(
        Simulator::built_by(|| generated::build(NODES, NODES / 5, 7)),
        |_| {},
    )
    .await
}

async fn page(app: &TestApp, path: &str) -> Page {
    let response = app.get(path).await;
    assert_eq!(response.status(), 200, "{path}");
    Page::parse(&response.text().await.expect("body"))
}

#[tokio::test]
async fn every_node_is_on_exactly_one_page_and_the_pager_says_where() {
    let app = big_cluster().await;
    let first = page(&app, "/nodes?sort=gpus&desc=1").await;
    assert_eq!(first.row_keys("data-node").len(), PAGE_ROWS);
    assert_eq!(
        first.text("nav.pager span"),
        format!("Rows 1–{PAGE_ROWS} of {NODES} · page 1 of 3")
    );
    assert_eq!(
        first.hrefs("nav.pager a[rel=next]"),
        ["?sort=gpus&desc=1&page=2"]
    );
    assert!(!first.has("nav.pager a[rel=prev]"));

    let mut seen = BTreeSet::new();
    let mut count = 0;
    for n in 1..=3 {
        let p = page(&app, &format!("/nodes?sort=gpus&desc=1&page={n}")).await;
        let keys = p.row_keys("data-node");
        count += keys.len();
        seen.extend(keys);
    }
    let all: BTreeSet<String> = app.lists().nodes.into_iter().map(|n| n.id).collect();
    assert_eq!(count, NODES, "no row on two pages");
    assert_eq!(seen, all, "no row lost");

    let last = page(&app, "/nodes?sort=gpus&desc=1&page=3").await;
    assert_eq!(
        last.hrefs("nav.pager a[rel=prev]"),
        ["?sort=gpus&desc=1&page=2"]
    );
    assert!(!last.has("nav.pager a[rel=next]"));
    // Sorting or filtering starts again at the first page.
    assert!(last.hrefs("thead a").iter().all(|h| !h.contains("page=")));
    assert!(!last.has("form.filter-bar input[name=page]"));
}

#[tokio::test]
async fn a_filter_that_fits_on_one_page_shows_no_pager() {
    let app = big_cluster().await;
    let id = app.lists().nodes[0].id.clone();
    let p = page(&app, &format!("/nodes?q={id}&page=3")).await;
    assert!(p.row_keys("data-node").contains(&id));
    assert!(!p.has("nav.pager"));
}

#[tokio::test]
async fn the_overview_models_and_replicas_are_paged_too() {
    let app = big_cluster().await;
    let lists = app.lists();
    let overview = page(&app, "/").await;
    assert_eq!(overview.row_keys("data-node").len(), PAGE_ROWS);
    assert!(overview.has("nav.pager a[rel=next]"));
    // Figures still count the whole cluster.
    assert!(
        overview
            .text(".card h2 a[href='/c/default/nodes']")
            .starts_with(&NODES.to_string())
    );

    let models = page(&app, "/models").await;
    assert_eq!(
        models.row_keys("data-model").len(),
        lists.models.len().min(PAGE_ROWS)
    );
    let replicas = page(&app, "/replicas").await;
    assert_eq!(
        replicas.row_keys("data-replica").len(),
        lists.replicas.len().min(PAGE_ROWS)
    );
    assert_eq!(replicas.has("nav.pager"), lists.replicas.len() > PAGE_ROWS);
}
