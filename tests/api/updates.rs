//! The change feed (`GET /updates`): open pages are told when the lists
//! move, by one poll a period shared by every listener, and the admin API
//! is asked nothing while nobody listens.

use std::time::{Duration, Instant};

use app::admin_api::types::NodeState;
use app::heartbeat::{Heartbeat, PATH};

use crate::support::helpers::{ScriptedUpstream, TestApp, http, spawn_console};
use crate::support::process::Process;

/// One open stream of heartbeats, read as a browser's `EventSource` does.
pub(crate) struct Listener {
    response: reqwest::Response,
    buffer: String,
}

impl Listener {
    pub(crate) async fn open(console: &str) -> Self {
        let response = http()
            .get(format!("{console}{PATH}"))
            .send()
            .await
            .expect("the feed answers");
        assert_eq!(response.status(), 200);
        let kind = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        assert_eq!(kind, "text/event-stream");
        assert!(
            response.headers().get("content-encoding").is_none(),
            "a compressed stream would hold heartbeats back"
        );
        Self {
            response,
            buffer: String::new(),
        }
    }

    /// The next heartbeat, or None when none came within `limit` or the
    /// stream ended.
    pub(crate) async fn next(&mut self, limit: Duration) -> Option<Heartbeat> {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                let data = event.lines().find_map(|l| l.strip_prefix("data: "));
                match data {
                    Some(data) => return Some(serde_json::from_str(data).expect("a heartbeat")),
                    // A keep-alive comment.
                    None => continue,
                }
            }
            let chunk = tokio::time::timeout_at(deadline, self.response.chunk())
                .await
                .ok()?
                .ok()??;
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }
}

#[tokio::test]
async fn a_listener_hears_each_period_and_a_change_at_once() {
    let app = TestApp::spawn().await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        app.simulator.calls().counts().is_empty(),
        "nobody listens, nothing is asked: {:?}",
        app.simulator.calls().counts()
    );
    let mut feed = Listener::open(&app.console).await;
    let first = feed
        .next(Duration::from_secs(3))
        .await
        .expect("a heartbeat");
    assert!(first.ok, "{first:?}");
    // A still cluster: heartbeats keep coming (the page's proof that its
    // data is current), and none of them is news.
    for _ in 0..2 {
        let again = feed
            .next(Duration::from_secs(3))
            .await
            .expect("a heartbeat");
        assert_eq!(again, first, "time passing is not a change");
    }
    let ready: Vec<String> = app
        .lists()
        .nodes
        .iter()
        .filter(|n| n.state == NodeState::Ready)
        .map(|n| n.id.clone())
        .collect();
    let node = ready[0].clone();
    let started = Instant::now();
    app.cordon(&node).await;
    loop {
        let beat = feed
            .next(Duration::from_secs(3))
            .await
            .expect("a heartbeat");
        if beat.generation != first.generation {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "no news of the change"
        );
    }
    assert!(
        started.elapsed() < Duration::from_millis(900),
        "a change through the console is told at once, not a period later: {:?}",
        started.elapsed()
    );
    // A change made elsewhere is told within a period or two.
    let before = feed
        .next(Duration::from_secs(3))
        .await
        .expect("a heartbeat");
    for n in app.simulator.cluster().nodes.iter_mut() {
        if n.id == ready[1] {
            n.state = NodeState::Cordoned;
        }
    }
    let mut told = false;
    for _ in 0..3 {
        if feed
            .next(Duration::from_secs(3))
            .await
            .expect("a heartbeat")
            != before
        {
            told = true;
            break;
        }
    }
    assert!(told, "a change in the cluster is pushed");
}

#[tokio::test]
async fn a_hundred_listeners_cost_one_call_per_list_per_period_and_none_when_gone() {
    let upstream = ScriptedUpstream::spawn(200, "application/json", b"[]".to_vec()).await;
    let console = spawn_console(&upstream.address).await;
    // The clock starts before the first listener: its arrival starts the
    // poller, and opening a hundred can take longer than a period.
    let started = Instant::now();
    let mut feeds = Vec::new();
    for _ in 0..100 {
        feeds.push(Listener::open(&console).await);
    }
    for feed in &mut feeds {
        assert!(feed.next(Duration::from_secs(3)).await.is_some());
    }
    tokio::time::sleep(Duration::from_millis(3000)).await;
    // Periods of one second: the first poll, and one per period since. The
    // calls are counted first, so none can come after the time is taken.
    let counts = upstream.calls_by_path();
    let periods = started.elapsed().as_secs() as usize + 1;
    for list in [
        "/api/v1/nodes",
        "/api/v1/models",
        "/api/v1/replicas",
        "/api/v1/weights/orphans",
    ] {
        let n = counts.get(list).copied().unwrap_or_default();
        assert!(
            (2..=periods).contains(&n),
            "{list}: {n} calls in {periods} periods, for 100 listeners"
        );
    }
    drop(feeds);
    // The poller sees the last listener gone at its next heartbeat.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let after = upstream.calls_by_path();
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(
        upstream.calls_by_path(),
        after,
        "nobody listens, nothing is asked"
    );
}

#[tokio::test]
async fn an_open_page_does_not_hold_a_shutdown_up() {
    let mut console = Process::start(&["--demo", "--log", "warn"]).await;
    let mut feed = Listener::open(&console.url).await;
    assert!(feed.next(Duration::from_secs(10)).await.is_some());
    assert!(
        console.terminate_within(Duration::from_secs(10)),
        "SIGTERM with a page open"
    );
    assert_eq!(
        feed.next(Duration::from_secs(2)).await,
        None,
        "the stream ended"
    );
}

/// The heartbeat a page was rendered at, as its settings tag says.
async fn rendered_at(app: &TestApp, path: &str) -> Option<Heartbeat> {
    let html = app.page(path).await;
    let page = crate::support::html::Page::parse(&html);
    let tag = page.one(&format!("meta[name='{}']", app::ui_settings::META_NAME));
    let settings: app::ui_settings::UiSettings =
        serde_json::from_str(tag.value().attr("content").expect("content")).expect("settings");
    settings.rendered_at
}

#[tokio::test]
async fn a_page_says_which_heartbeat_its_data_is_as_recent_as() {
    let app = TestApp::spawn().await;
    // Nothing polled yet: the page cannot say, and its first heartbeat
    // will be news.
    assert_eq!(rendered_at(&app, "/nodes").await, None);
    let mut feed = Listener::open(&app.console).await;
    let first = feed
        .next(Duration::from_secs(3))
        .await
        .expect("a heartbeat");
    // Once it can, a tab hears that same heartbeat first and reads nothing
    // again on opening its stream.
    assert_eq!(rendered_at(&app, "/nodes").await, Some(first));
    let node = app
        .lists()
        .nodes
        .iter()
        .find(|n| n.state == NodeState::Ready)
        .expect("a ready node")
        .id
        .clone();
    app.cordon(&node).await;
    let news = loop {
        let beat = feed
            .next(Duration::from_secs(3))
            .await
            .expect("a heartbeat");
        if beat != first {
            break beat;
        }
    };
    assert_eq!(rendered_at(&app, "/nodes").await, Some(news));
}
