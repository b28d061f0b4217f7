use app::admin_api::types::NodeView;

use crate::helpers::TestApp;

#[tokio::test]
async fn the_nodes_page_is_rendered_on_the_server_with_every_node() {
    let app = TestApp::spawn().await;
    let html = app.page("/nodes").await;
    let nodes = app
        .simulator
        .cluster()
        .list_nodes(std::time::Instant::now());
    assert!(nodes.len() >= 12);
    for node in &nodes {
        assert!(
            html.contains(&format!("data-node=\"{}\"", node.id)),
            "{} missing from the page",
            node.id
        );
    }
    // Both forms of "not reported" show as dashes, never as zero or full.
    let old_agent = row(&html, "gpu-a100-04");
    assert_eq!(cells(old_agent)[2], "-", "memory: {old_agent}");
    assert_eq!(cells(old_agent)[3], "-", "disk: {old_agent}");
    assert_eq!(cells(row(&html, "gpu-h100-02"))[1], "2/8 free");
    // Unhealthy GPUs are shown with their node and why they matter.
    assert!(html.contains("GPU 5: Xid 79, fallen off the bus"));
    assert!(html.contains("kept out of placement"));
    assert!(html.contains("12 nodes"));
}

#[tokio::test]
async fn the_front_page_shows_the_node_table_too() {
    let app = TestApp::spawn().await;
    let html = app.page("/").await;
    assert!(html.contains("data-node=\"gpu-h100-01\""));
    // The page asks for the hydration script under the name cargo-leptos builds.
    assert!(html.contains("/pkg/llmgw-console.js"), "{html}");
}

#[tokio::test]
async fn the_list_nodes_server_function_answers_what_the_simulator_holds() {
    let app = TestApp::spawn().await;
    let response = app.server_fn("list_nodes", &[]).await;
    assert_eq!(response.status(), 200);
    let nodes: Vec<NodeView> = response.json().await.expect("node list");
    let expected = app
        .simulator
        .cluster()
        .list_nodes(std::time::Instant::now());
    assert_eq!(nodes, expected);
}

#[tokio::test]
async fn a_state_change_in_the_cluster_shows_on_the_next_render() {
    let app = TestApp::spawn().await;
    let before = app.page("/nodes").await;
    assert!(row(&before, "gpu-l40s-03").contains("state-ready"));
    app.simulator
        .cluster()
        .set_node_state(
            std::time::Instant::now(),
            "test",
            "gpu-l40s-03",
            app::admin_api::types::TargetState::Cordoned,
        )
        .expect("known node");
    let after = app.page("/nodes").await;
    assert!(row(&after, "gpu-l40s-03").contains("state-cordoned"));
}

#[tokio::test]
async fn an_unknown_path_is_a_404_page_in_the_layout() {
    let app = TestApp::spawn().await;
    let response = app.get("/no/such/page").await;
    assert_eq!(response.status(), 404);
    let html = response.text().await.expect("body");
    assert!(html.contains("Not found"));
    assert!(html.contains("llmgw console"));
}

/// The `<tr>` of one node, from `data-node` to the row's end.
pub fn row<'a>(html: &'a str, node: &str) -> &'a str {
    row_by(html, "data-node", node)
}

/// The `<tr>` whose `attribute` is `value`.
pub fn row_by<'a>(html: &'a str, attribute: &str, value: &str) -> &'a str {
    let start = html
        .find(&format!("{attribute}=\"{value}\""))
        .unwrap_or_else(|| panic!("no row with {attribute}={value}"));
    let end = html[start..].find("</tr>").expect("row ends") + start;
    &html[start..end]
}

/// The text of each `<td>` in a row.
pub fn cells(row: &str) -> Vec<String> {
    row.split("<td")
        .skip(1)
        .map(|cell| {
            let inner = &cell[cell.find('>').map_or(0, |i| i + 1)..];
            let mut text = String::new();
            let mut in_tag = false;
            for c in inner.chars() {
                match c {
                    '<' => in_tag = true,
                    '>' => in_tag = false,
                    _ if !in_tag => text.push(c),
                    _ => {}
                }
            }
            text.split("</td")
                .next()
                .unwrap_or("")
                .replace("<!>", "")
                .trim()
                .to_string()
        })
        .collect()
}
