//! Links to the team's tools on node and model pages: the settings'
//! templates filled in with each value encoded, and nothing where a page
//! has no template.

use app::team_links::LinkTemplate;

use crate::support::helpers::TestApp;
use crate::support::html::Page;

fn templates() -> Vec<LinkTemplate> {
    vec![
        LinkTemplate {
            name: "GPU dashboard".into(),
            node: Some(
                "https://grafana.example/d/gpu?var-node={node}&var-cluster={cluster}".into(),
            ),
            model: None,
        },
        LinkTemplate {
            name: "Serving".into(),
            node: None,
            model: Some("https://grafana.example/d/serving/{model}?c={cluster}".into()),
        },
    ]
}

#[tokio::test]
async fn node_and_model_pages_link_to_the_teams_tools_with_their_names_encoded() {
    let app = TestApp::spawn_with(|cx| cx.ui.team_links = templates()).await;
    let lists = app.lists();
    let node = &lists.nodes.last().expect("a node").id;
    let page = app.settled_page(&format!("/nodes/{node}")).await;
    assert_eq!(
        page.hrefs("nav.team-links a"),
        [format!(
            "https://grafana.example/d/gpu?var-node={}&var-cluster=default",
            app::urls::encode_component(node)
        )],
        "the node's template only"
    );
    assert_eq!(page.text("nav.team-links a"), "GPU dashboard");

    let model = &lists.models[0].name;
    let page = Page::parse(&app.page(&format!("/models/{model}/placement")).await);
    assert_eq!(
        page.hrefs("nav.team-links a"),
        [format!(
            "https://grafana.example/d/serving/{}?c=default",
            app::urls::encode_component(model)
        )]
    );
    let link = page.one("nav.team-links a");
    assert_eq!(link.value().attr("rel"), Some("noopener noreferrer"));
}

#[tokio::test]
async fn without_templates_a_page_has_no_links_section() {
    let app = TestApp::spawn().await;
    let node = app.lists().nodes[0].id.clone();
    let page = app.settled_page(&format!("/nodes/{node}")).await;
    assert!(!page.has("nav.team-links"));
}
