//! The nodes page and its server function, against what the simulator holds.

use app::dated::DatedNode;
use app::format;
use app::joins::{DrainPreview, drain_preview, runs_on};
use app::table::TablePage;

use crate::support::helpers::TestApp;

#[tokio::test]
async fn the_nodes_page_is_rendered_on_the_server_with_every_node() {
    let app = TestApp::spawn().await;
    let lists = app.lists();
    let page = app.parsed("/nodes").await;
    let ids: Vec<&str> = lists.nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(page.row_keys("data-node"), ids);
    assert_eq!(
        page.text(".filter-bar .count"),
        format!("{} nodes", lists.nodes.len())
    );
    for node in &lists.nodes {
        let row = page.row("data-node", &node.id);
        // Each value under its own header: a swapped column fails here.
        // A drain with nothing left to move says so beside the state.
        let state = format::or_dash(node.state.as_str());
        let drained = node.state.as_str() == "draining" && node.replicas == 0;
        let expected = if drained {
            format!("{state} drained: no replicas left")
        } else {
            state
        };
        assert_eq!(page.cell(row, "State"), expected);
        assert_eq!(page.cell(row, "GPUs"), format::gpus(node), "{}", node.id);
        assert_eq!(page.cell(row, "Memory"), format::memory(node.memory_gb));
        assert_eq!(
            page.cell(row, "Disk"),
            format::disk(node.disk_free_gb, node.disk_total_gb)
        );
        assert_eq!(page.cell(row, "Replicas"), node.replicas.to_string());
        assert_eq!(
            page.cell(row, "Last seen"),
            format::go_duration(&node.last_seen_ago)
        );
    }
    // Both forms of "not reported" show as dashes, never as zero or full.
    let old_agent = lists
        .nodes
        .iter()
        .find(|n| n.memory_gb == 0 && n.disk_total_gb == 0)
        .expect("an agent that reports neither memory nor disk");
    let row = page.row("data-node", &old_agent.id);
    assert_eq!(page.cell(row, "Memory"), format::DASH);
    assert_eq!(page.cell(row, "Disk"), format::DASH);
    // Unhealthy GPUs are shown, each on a line of its own; why it matters
    // is said once, above the table.
    let lines = page.texts("tr.unhealthy");
    let unhealthy: Vec<&String> = lists.nodes.iter().flat_map(|n| &n.unhealthy).collect();
    assert!(!unhealthy.is_empty());
    assert_eq!(lines.len(), unhealthy.len());
    for (line, gpu) in lines.iter().zip(unhealthy) {
        assert!(line.contains(gpu.as_str()), "{line}");
        assert!(!line.contains("kept out of placement"), "{line}");
    }
    assert_eq!(page.texts("p.legend").len(), 1);
    assert!(page.text("p.legend").contains("kept out of placement"));
}

#[tokio::test]
async fn the_front_page_shows_the_node_table_too() {
    let app = TestApp::spawn().await;
    let lists = app.lists();
    let page = app.parsed("/").await;
    let ids: Vec<&str> = lists.nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(page.row_keys("data-node"), ids);
    // The page asks for the islands' script under the name the build gives
    // it (Cargo.toml's output-name), in this build's folder.
    let scripts: Vec<&str> = page
        .all("link[rel=modulepreload], script[src]")
        .into_iter()
        .filter_map(|e| e.value().attr("href").or(e.value().attr("src")))
        .collect();
    let expected = format!(
        "/pkg/{}/llmgw-console.js",
        llmgw_console::assets::build_id()
    );
    assert!(scripts.contains(&expected.as_str()), "{scripts:?}");
}

#[tokio::test]
async fn the_list_nodes_server_function_answers_what_the_simulator_holds() {
    let app = TestApp::spawn().await;
    let response = app.server_fn("list_nodes", &[]).await;
    assert_eq!(response.status(), 200);
    let page: TablePage<DatedNode> = response.json().await.expect("a page of nodes");
    let nodes = app.lists().nodes;
    assert_eq!(
        (page.total, page.shown, page.page),
        (nodes.len(), nodes.len(), 0)
    );
    let rows: Vec<_> = page.rows.iter().map(|n| n.row.clone()).collect();
    assert_eq!(
        rows, nodes,
        "the demo cluster fits on one page, in the API's order"
    );

    // The view is the table's URL query: its facets, filter and sort.
    let response = app
        .server_fn("list_nodes", &[("query", "state=ready&sort=node&desc=1")])
        .await;
    let page: TablePage<DatedNode> = response.json().await.expect("a page of nodes");
    let mut ready: Vec<String> = nodes
        .iter()
        .filter(|n| n.state.as_str() == "ready")
        .map(|n| n.id.clone())
        .collect();
    assert!(ready.len() > 1, "the demo cluster has ready nodes");
    ready.sort();
    ready.reverse();
    let ids: Vec<String> = page.rows.iter().map(|n| n.id.clone()).collect();
    assert_eq!(ids, ready);
    assert_eq!((page.total, page.shown), (nodes.len(), ready.len()));
}

#[tokio::test]
async fn the_drain_preview_reads_two_lists_and_no_explanation() {
    let app = TestApp::spawn().await;
    let lists = app.lists();
    let node = lists
        .nodes
        .iter()
        .find(|n| lists.replicas.iter().any(|r| runs_on(r, &n.id)))
        .expect("a node with replicas")
        .id
        .clone();
    let response = app.server_fn("preview_drain", &[("node", &node)]).await;
    assert_eq!(response.status(), 200);
    let preview: DrainPreview = response.json().await.expect("a preview");
    assert_eq!(
        preview,
        drain_preview(&node, &lists.nodes, &lists.models, &lists.replicas)
    );
    assert!(!preview.replicas.is_empty(), "{preview:?}");
    assert_eq!(
        explain_calls(&app),
        0,
        "a preview of a drain asks for no explanation"
    );
}

fn explain_calls(app: &TestApp) -> u64 {
    app.simulator
        .calls()
        .counts()
        .iter()
        .filter(|(path, _)| path.contains("explain"))
        .map(|(_, n)| n)
        .sum()
}

/// The models a node page's rejections come from.
fn worth_explaining(models: &[app::admin_api::types::ModelView]) -> u64 {
    models
        .iter()
        .filter(|m| app::server::rejection_index::worth_explaining(m))
        .count() as u64
}

#[tokio::test]
async fn node_pages_share_one_index_and_ask_nothing_while_the_cluster_is_still() {
    let app = TestApp::spawn().await;
    let lists = app.lists();
    let node = &lists.nodes[0].id;
    let _ = app.settled_page(&app::urls::node(node)).await;
    let built = explain_calls(&app);
    let wanted = worth_explaining(&lists.models);
    assert!(
        wanted > 0,
        "the demo cluster has a model short of its count"
    );
    assert_eq!(
        built, wanted,
        "one explanation per model short of its count"
    );
    // Two periods later (the lists are a period old by then), another node
    // page reads the same index: nothing moved, so nothing is asked.
    tokio::time::sleep(std::time::Duration::from_millis(2200)).await;
    let _ = app.parsed(&app::urls::node(&lists.nodes[1].id)).await;
    assert_eq!(explain_calls(&app), built, "the index is shared still");
    // A change made through the console gathers it again at once.
    app.cordon(node).await;
    let _ = app.settled_page(&app::urls::node(node)).await;
    let again = worth_explaining(&app.lists().models);
    assert_eq!(
        explain_calls(&app),
        built + again,
        "asked again after a change"
    );
}

#[tokio::test]
async fn a_mostly_placed_catalog_costs_a_node_page_only_its_unplaced_models() {
    let app = TestApp::spawn_on(
        llmgw_console::simulator::Simulator::built_by(|| {
            llmgw_console::simulator::generated::build(400, 80, 7)
        }),
        |_| {},
    )
    .await;
    let lists = app.lists();
    let wanted = worth_explaining(&lists.models);
    assert!(
        wanted * 2 < lists.models.len() as u64,
        "{wanted} of {} models short of their count: not mostly placed",
        lists.models.len()
    );
    let node = &lists.nodes[0].id;
    let page = app.settled_page(&app::urls::node(node)).await;
    assert_eq!(explain_calls(&app), wanted);
    let rejections = lists.rejections_naming(node);
    assert_eq!(
        page.texts("main section h2")
            .into_iter()
            .find(|h| h.starts_with("Rejections that name")),
        Some(format!(
            "Rejections that name this node ({})",
            rejections.len()
        ))
    );
}

#[tokio::test]
async fn what_narrows_the_table_is_shown_as_chips_that_remove_it_and_every_facet_is_offered() {
    let app = TestApp::spawn().await;
    app.cordon("gpu-h100-01").await;
    let lists = app.lists();
    let cordoned = lists
        .nodes
        .iter()
        .filter(|n| n.state.as_str() == "cordoned")
        .count();
    let page = app.parsed("/nodes?state=cordoned&q=gpu&sort=id").await;
    assert_eq!(page.all("tr[data-node]").len(), cordoned);
    // Each thing that narrows the view is a chip; its link shows the view
    // without it, sort kept.
    let chips = page.texts("p.applied a.chip");
    assert_eq!(chips, ["state: cordoned ×", "filter: gpu ×"]);
    let hrefs = page.hrefs("p.applied a.chip");
    assert_eq!(hrefs, ["?q=gpu&sort=id", "?state=cordoned&sort=id"]);
    assert_eq!(page.hrefs("p.applied a.clear-all"), ["?sort=id"]);
    // The facets offered above the table, the applied value marked.
    let offered = page.texts("nav.facets a");
    for value in ["any", "ready", "cordoned", "draining", "some unhealthy"] {
        assert!(offered.iter().any(|o| o == value), "{value} in {offered:?}");
    }
    assert_eq!(
        page.texts("nav.facets .facet[aria-label='State'] a[aria-current='true']"),
        ["cordoned"]
    );
    let to_ready = page
        .all("nav.facets a")
        .into_iter()
        .find(|a| crate::support::html::text(*a) == "ready")
        .and_then(|a| a.value().attr("href").map(str::to_string))
        .expect("a link to the ready nodes");
    assert_eq!(to_ready, "?state=ready&q=gpu&sort=id");
    // Nothing narrows the plain list: no chips.
    assert!(!app.parsed("/nodes").await.has("p.applied"));
}

#[tokio::test]
async fn a_drain_with_nothing_left_to_move_says_it_is_done_and_one_still_moving_does_not() {
    let app = TestApp::spawn().await;
    let lists = app.lists();
    let empty = lists
        .nodes
        .iter()
        .find(|n| n.replicas == 0 && n.state.as_str() == "ready")
        .expect("a ready node with no replica");
    let busy = lists
        .nodes
        .iter()
        .find(|n| n.replicas > 0 && n.state.as_str() == "ready")
        .expect("a ready node with replicas");
    for node in [&empty.id, &busy.id] {
        app.set_state(node, "draining").await;
    }
    let page = app.parsed("/nodes").await;
    let done = |id: &str| {
        let row = page.row("data-node", id);
        page.cell(row, "State")
    };
    assert!(
        done(&empty.id).contains("drained: no replicas left"),
        "{}",
        done(&empty.id)
    );
    let after = app.lists();
    let still = after.node(&busy.id);
    if still.replicas > 0 {
        assert!(!done(&busy.id).contains("drained"), "{}", done(&busy.id));
    }
    let node_page = app.parsed(&format!("/nodes/{}", empty.id)).await;
    assert!(
        node_page
            .text(".facts")
            .contains("drained: no replicas left")
    );
}

#[tokio::test]
async fn compact_rows_and_chosen_columns_are_rendered_from_the_url() {
    let app = TestApp::spawn().await;
    let page = app.parsed("/nodes?compact=1&cols=state,gpus").await;
    let table = page.one("table.data.nodes");
    assert!(table.value().classes().any(|c| c == "compact"));
    // The node's name always, then the columns chosen, in the table's order.
    let headers = page.texts("table.data.nodes thead th");
    assert_eq!(headers.len(), 3, "{headers:?}");
    assert!(
        headers[0].starts_with("Node")
            && headers[1].starts_with("State")
            && headers[2].starts_with("GPUs"),
        "{headers:?}"
    );
    let first = page.all("table.data.nodes tbody tr[data-node]")[0];
    assert_eq!(
        first.children().filter(|c| c.value().is_element()).count(),
        3
    );
    // Notes span the columns shown.
    for note in page.all("tr.unhealthy td") {
        assert_eq!(note.value().attr("colspan"), Some("3"));
    }
    // The chooser offers every column but the node's, ticked as shown.
    let ticked: Vec<&str> = page
        .all(".columns-menu input[type=checkbox][checked]")
        .iter()
        .filter_map(|b| b.value().attr("value"))
        .collect();
    assert_eq!(ticked, ["state", "gpus"]);
    assert!(page.all(".columns-menu input[type=checkbox]").len() >= 8);
    // Every link of the view keeps both.
    for href in page.hrefs("thead th a") {
        assert!(
            href.contains("compact=1") && href.contains("cols=state%2Cgpus"),
            "{href}"
        );
    }
    // A column nobody has is no column; an empty choice leaves the name.
    let page = app.parsed("/nodes?cols=nonsense").await;
    assert_eq!(page.texts("table.data.nodes thead th").len(), 1);
}
