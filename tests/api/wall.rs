//! The wall screen: every panel from the link, nothing to click, figures
//! from the same lists as the other pages, and one upstream poll for any
//! number of walls.

use app::format::{self, ModelStatus};
use app::joins::group_by_reason;
use app::wall::Panel;

use crate::support::helpers::TestApp;

const CONTROLS: &str =
    ".wall a, .wall button, .wall input, .wall form, .wall select, .wall textarea";

#[tokio::test]
async fn the_wall_shows_every_panel_and_nothing_to_click() {
    let app = TestApp::spawn().await;
    let lists = app.lists();
    let page = app.parsed("/wall").await;
    let panels: Vec<String> = page
        .all(".wall-panel")
        .into_iter()
        .filter_map(|p| p.value().attr("data-panel").map(str::to_string))
        .collect();
    let every: Vec<&str> = Panel::ALL.iter().map(|p| p.slug()).collect();
    assert_eq!(panels, every);
    assert!(page.all(CONTROLS).is_empty(), "no control on a wall");
    assert!(!page.has("header.top"), "no navigation on a wall");

    let free: i64 = lists.nodes.iter().map(|n| n.gpu_free).sum();
    let total: i64 = lists.nodes.iter().map(|n| n.gpu_total).sum();
    assert_eq!(
        page.text("[data-panel=nodes] .big"),
        format!("{free} free of {total} GPUs")
    );
    let not_placed: Vec<&str> = lists
        .models
        .iter()
        .filter(|m| ModelStatus::of(m) == ModelStatus::NotPlaced)
        .map(|m| m.name.as_str())
        .collect();
    assert!(!not_placed.is_empty());
    let rows = page.texts("[data-panel=models] li");
    for model in &not_placed {
        let explain = lists
            .explains
            .iter()
            .find(|e| e.model == *model)
            .expect("explained");
        // A cordoned node it could use is the story, before any count;
        // else one of its kinds of reason, or none attempted.
        let told: Vec<String> = if explain
            .rejections
            .iter()
            .any(|r| r.reason == "node is cordoned")
        {
            vec!["node is cordoned (×".to_string()]
        } else if explain.rejections.is_empty() {
            vec!["no placement attempted yet".to_string()]
        } else {
            group_by_reason(&explain.rejections)
                .into_iter()
                .map(|g| g.reason)
                .collect()
        };
        // By its distinctive end, the whole name on hover.
        let shown = app::wall::short_model_name(model);
        assert!(
            page.all("[data-panel=models] li .name")
                .iter()
                .any(|n| n.value().attr("title") == Some(*model)),
            "{model} whole in a title"
        );
        assert!(
            rows.iter().any(|r| r.contains(shown)
                && r.contains("not placed")
                && told.iter().any(|t| r.contains(t.as_str()))),
            "{model} with one of {told:?} in {rows:?}"
        );
    }
    let sick: Vec<&str> = lists
        .nodes
        .iter()
        .filter(|n| !n.unhealthy.is_empty())
        .map(|n| n.id.as_str())
        .collect();
    let trouble = page.texts("[data-panel=trouble] li");
    for node in sick {
        assert!(
            trouble
                .iter()
                .any(|t| t.contains(node) && t.contains("unhealthy GPU")),
            "{trouble:?}"
        );
    }
    let reclaimable: i64 = lists.orphans.iter().map(|o| o.bytes.max(0)).sum();
    assert_eq!(
        page.text("[data-panel=weights] .big"),
        format::file_size(reclaimable)
    );
    assert_eq!(page.all("[data-panel=trends] figure.spark").len(), 4);
}

#[tokio::test]
async fn panels_and_their_turns_come_from_the_link() {
    let app = TestApp::spawn().await;
    let page = app.parsed("/wall?panels=trouble,models&cycle=30").await;
    let panels = page.all(".wall-panel");
    let slugs: Vec<&str> = panels
        .iter()
        .filter_map(|p| p.value().attr("data-panel"))
        .collect();
    assert_eq!(slugs, ["trouble", "models"]);
    // Taking turns: the wall says the first is on screen (the stylesheet
    // hides the others by their index).
    assert_eq!(page.one(".wall").value().attr("data-shown"), Some("0"));
    assert!(page.has(".wall-panels.cycling"));
    let indexes: Vec<&str> = panels
        .iter()
        .filter_map(|p| p.value().attr("data-index"))
        .collect();
    assert_eq!(indexes, ["0", "1"]);
    // No turns asked for: both at once.
    let page = app.parsed("/wall?panels=trouble,models").await;
    assert!(!page.has(".wall-panels.cycling"));
}

#[tokio::test]
async fn the_setup_page_builds_the_link() {
    let app = TestApp::spawn().await;
    let page = app
        .parsed("/wall/setup?panel=models&panel=trends&cycle=20")
        .await;
    assert_eq!(
        page.hrefs("a.wall-link"),
        ["/c/default/wall?panels=models,trends&cycle=20"]
    );
    let checked: Vec<&str> = page
        .all("input[type=checkbox][checked]")
        .into_iter()
        .filter_map(|i| i.value().attr("value"))
        .collect();
    assert_eq!(checked, ["models", "trends"]);
    // Opening the link shows what was chosen.
    let wall = app.parsed("/wall?panels=models,trends&cycle=20").await;
    assert_eq!(wall.all(".wall-panel").len(), 2);
}

#[tokio::test]
async fn fifty_walls_cost_one_call_per_list() {
    let app = TestApp::spawn().await;
    let before = app.simulator.calls().counts();
    let loads = (0..50).map(|_| app.get("/wall"));
    for r in futures_util::future::join_all(loads).await {
        assert_eq!(r.status(), 200);
    }
    let after = app.simulator.calls().counts();
    for list in [
        "/api/v1/nodes",
        "/api/v1/models",
        "/api/v1/replicas",
        "/api/v1/weights/orphans",
    ] {
        let n = after.get(list).copied().unwrap_or(0) - before.get(list).copied().unwrap_or(0);
        assert!(n <= 1, "{list}: {n} calls for 50 walls");
    }
}

#[tokio::test]
async fn every_tab_hears_the_same_pulse_as_the_wall() {
    let app = TestApp::spawn().await;
    let mut feed = crate::updates::Listener::open(&app.console).await;
    let heartbeat = feed
        .next(std::time::Duration::from_secs(3))
        .await
        .expect("a heartbeat");
    let pulse = heartbeat
        .pulse
        .expect("the demo's lists answer, so a pulse");
    let page = app.parsed("/wall").await;
    // Down and below wanted, each as many as the wall lists of it.
    assert_eq!(
        pulse.not_serving,
        page.all("[data-panel=models] li.down").len()
    );
    assert_eq!(
        pulse.below_wanted,
        page.all("[data-panel=models] li.below").len()
    );
    assert!(pulse.not_serving > 0 && pulse.below_wanted > 0, "{pulse:?}");
    assert_eq!(
        pulse.nodes_in_trouble,
        page.all("[data-panel=trouble] li").len()
    );
    assert!(pulse.not_serving > 0, "the demo has models not serving");
    // A page rendered now says it without JavaScript: in its title and icon.
    let nodes = app.parsed("/nodes").await;
    let title = nodes.one("title").text().collect::<String>();
    assert_eq!(title, pulse.title("Nodes"));
    assert!(
        title.ends_with(&format!(
            "— {} models not serving, {} below wanted",
            pulse.not_serving, pulse.below_wanted
        )),
        "{title}"
    );
    assert_eq!(
        nodes.one("link#tab-icon").value().attr("href"),
        Some(pulse.icon())
    );
}
