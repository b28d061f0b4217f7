//! Several clusters in one console: each in its own addresses, none
//! reachable from another's pages, actions and signatures bound to their
//! cluster, and one cluster that hangs costing the others nothing.

use std::collections::{BTreeSet, VecDeque};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use app::server::audit::Outcome;
use llmgw_console::cluster_settings::ClusterSetting;
use llmgw_console::simulator::faults::Fault;
use llmgw_console::simulator::{Simulator, generated};
use llmgw_console::startup::console_context_for;

use crate::support::helpers::{http, settings, spawn_console_from, spawn_simulator};
use crate::support::html::Page;

/// A console showing two clusters: `eu` (the demo cluster, with trouble)
/// and `us` (a small generated one).
struct Fleet {
    console: String,
    eu: Simulator,
    us: Simulator,
    audit: std::sync::Arc<app::server::audit::AuditLog>,
}

fn cluster(id: &str, sim: &Simulator, read_only: bool) -> ClusterSetting {
    let addr = spawn_simulator(sim.clone(), SocketAddr::from(([127, 0, 0, 1], 0)));
    ClusterSetting {
        id: id.into(),
        label: format!("{} label", id.to_uppercase()),
        admin_api: format!("http://{addr}"),
        colour: Some("#2a7".into()),
        read_only,
    }
}

impl Fleet {
    async fn spawn() -> Self {
        Self::spawn_with(false).await
    }

    async fn spawn_with(us_read_only: bool) -> Self {
        Self::spawn_of(
            Simulator::built_by(|| generated::build(12, 6, 5)),
            us_read_only,
        )
        .await
    }

    /// `eu` the demo cluster, `us` the cluster `us` simulates.
    async fn spawn_of(us: Simulator, us_read_only: bool) -> Self {
        let eu = Simulator::demo();
        let clusters = [cluster("eu", &eu, false), cluster("us", &us, us_read_only)];
        let context = console_context_for(&settings(), &clusters).expect("valid settings");
        let audit = context.audit.clone();
        Self {
            console: spawn_console_from(context),
            eu,
            us,
            audit,
        }
    }

    async fn get(&self, path: &str) -> reqwest::Response {
        http()
            .get(format!("{}{path}", self.console))
            .send()
            .await
            .expect("console answers")
    }

    async fn page(&self, path: &str) -> Page {
        let response = self.get(path).await;
        let status = response.status();
        let body = response.text().await.expect("body");
        assert_eq!(status, 200, "GET {path}: {body}");
        Page::parse(&body)
    }

    async fn post(&self, path: &str, form: &[(&str, &str)]) -> reqwest::Response {
        http()
            .post(format!("{}{path}", self.console))
            .form(form)
            .send()
            .await
            .expect("console answers")
    }

    /// Cordons `node` through `base` (`/c/us`, or nothing), confirmed.
    async fn cordon(&self, base: &str, node: &str) -> reqwest::Response {
        self.post(
            &format!("{base}/api/set_node_state"),
            &[("node", node), ("state", "cordoned"), ("confirm", "yes")],
        )
        .await
    }
}

fn node_ids(sim: &Simulator) -> Vec<String> {
    sim.cluster()
        .list_nodes(Instant::now())
        .into_iter()
        .map(|n| n.id)
        .collect()
}

#[tokio::test]
async fn each_cluster_has_its_own_pages() {
    let fleet = Fleet::spawn().await;
    for (id, sim, other) in [("eu", &fleet.eu, &fleet.us), ("us", &fleet.us, &fleet.eu)] {
        let page = fleet.page(&format!("/c/{id}/nodes")).await;
        let shown: BTreeSet<String> = page.row_keys("data-node").into_iter().collect();
        let own: BTreeSet<String> = node_ids(sim).into_iter().collect();
        let others: BTreeSet<String> = node_ids(other).into_iter().collect();
        assert!(!shown.is_empty());
        assert!(shown.is_subset(&own), "{id} shows {shown:?}");
        assert!(shown.is_disjoint(&others.difference(&own).cloned().collect()));
        let label = page.text("header.top .cluster-badge");
        assert!(
            label.contains(&id.to_uppercase()),
            "the header names the cluster"
        );
        // So does the tab: two tabs of two clusters are told apart.
        assert!(
            page.text("title")
                .starts_with(&format!("Nodes · {label} · llmgw console")),
            "{}",
            page.text("title")
        );
    }
}

#[tokio::test]
async fn links_shared_before_there_were_clusters_open_the_first() {
    let fleet = Fleet::spawn().await;
    for (old, new) in [
        ("/nodes", "/c/eu/nodes"),
        (
            "/models/meta-llama%2FLlama-3.1-70B-Instruct/placement?group=node",
            "/c/eu/models/meta-llama%2FLlama-3.1-70B-Instruct/placement?group=node",
        ),
        // The wall of a console of several clusters is every cluster's.
        ("/wall", "/wall?clusters=eu,us"),
        ("/wall?cycle=30", "/wall?clusters=eu,us&cycle=30"),
        ("/audit", "/c/eu/audit"),
    ] {
        let response = fleet.get(old).await;
        assert_eq!(response.status(), 307, "{old}");
        assert_eq!(response.headers()["location"], new, "{old}");
    }
    let unknown = fleet.get("/c/mars/nodes").await;
    assert_eq!(unknown.status(), 404);
    let body = unknown.text().await.expect("body");
    assert!(
        body.contains("mars") && body.contains("/c/eu/") && body.contains("/c/us/"),
        "{body}"
    );
    // The console's own page, in its layout, each cluster a way in.
    let page = Page::parse(&body);
    assert_eq!(page.text("h1"), "No such cluster");
    assert!(page.has("header.top"), "in the console's layout");
    let ways_in = page.hrefs("main ul.cluster-list a");
    assert_eq!(ways_in, ["/c/eu/", "/c/us/"]);
    // A function of an unknown cluster is still told in a sentence.
    let call = fleet.post("/c/mars/api/list_nodes", &[]).await;
    assert_eq!(call.status(), 404);
}

/// Every link and form of every page of one cluster stays in it; the only
/// ways out are the overview of all, the other clusters' switch, and the
/// theme.
#[tokio::test]
async fn no_link_or_form_leaves_the_pages_cluster() {
    let fleet = Fleet::spawn().await;
    for id in ["eu", "us"] {
        let base = format!("/c/{id}/");
        let mut seen = BTreeSet::new();
        let mut queue = VecDeque::from([base.clone()]);
        while let Some(path) = queue.pop_front() {
            if seen.len() >= 120 || !seen.insert(path.clone()) {
                continue;
            }
            let page = fleet.page(&path).await;
            let switch: BTreeSet<String> = page.hrefs("nav.cluster-switch a").into_iter().collect();
            let mut targets = page.hrefs("a");
            targets.extend(
                page.all("form")
                    .into_iter()
                    .filter_map(|f| f.value().attr("action").map(str::to_string)),
            );
            for target in targets {
                // A query alone stays on the page it is on.
                let target = match target.strip_prefix('?') {
                    Some(query) => format!("{}?{query}", path.split('?').next().unwrap_or("")),
                    None => target,
                };
                let allowed = target.starts_with(&base)
                    || target == "/"
                    || target.starts_with("/theme/")
                    || switch.contains(&target)
                    || target.starts_with('#');
                assert!(allowed, "{path} links out of {id}: {target}");
                if target.starts_with(&base)
                    && !target.contains("/api/")
                    && !switch.contains(&target)
                {
                    queue.push_back(target);
                }
            }
        }
        assert!(seen.len() > 10, "walked only {seen:?}");
    }
}

#[tokio::test]
async fn a_change_reaches_only_its_cluster_and_its_record_names_it() {
    let fleet = Fleet::spawn().await;
    let node = node_ids(&fleet.us)[0].clone();
    let answer = fleet.cordon("/c/us", &node).await;
    assert_eq!(answer.status(), 200, "{:?}", answer.text().await);
    assert_eq!(fleet.us.audit().len(), 1);
    assert!(fleet.eu.audit().is_empty());
    let done = fleet
        .audit
        .recent()
        .into_iter()
        .find(|r| r.outcome == Outcome::Done)
        .expect("a record of the change");
    assert_eq!(done.cluster.as_deref(), Some("us"));
    // A form of one cluster goes back to a page of that cluster, whatever
    // its `back` says.
    let crossed = fleet
        .post(
            "/c/eu/api/set_node_state",
            &[
                ("node", &node_ids(&fleet.eu)[0]),
                ("state", "ready"),
                ("confirm", "yes"),
                ("back", "/c/us/nodes"),
            ],
        )
        .await;
    let location = crossed.headers()["location"].to_str().expect("ascii");
    assert!(location.starts_with("/c/eu/"), "{location}");
    // Each cluster's audit page shows its own attempts.
    let page = fleet.page("/c/us/audit").await;
    assert!(page.texts("td").iter().any(|t| t == "us"));
    let page = fleet.page("/c/eu/audit").await;
    let rows = page.all("tr[data-attempt]");
    assert!(!rows.is_empty());
    assert!(rows.into_iter().all(|r| page.cell(r, "Cluster") == "eu"));
}

#[tokio::test]
async fn a_change_that_names_no_cluster_is_refused_and_recorded() {
    let fleet = Fleet::spawn().await;
    let node = node_ids(&fleet.eu)[0].clone();
    let answer = fleet.cordon("", &node).await;
    assert_eq!(answer.status(), 404);
    // Nor a cluster this console does not show.
    let answer = fleet.cordon("/c/mars", &node).await;
    assert_eq!(answer.status(), 404);
    assert!(fleet.eu.audit().is_empty() && fleet.us.audit().is_empty());
    let refused = fleet.audit.recent();
    assert_eq!(refused.len(), 2);
    assert!(
        refused
            .iter()
            .all(|r| r.outcome == Outcome::Refused && r.cluster.is_none())
    );
    // A read about one cluster must name it too; one about all need not.
    assert_eq!(fleet.post("/api/list_nodes", &[]).await.status(), 404);
    assert_eq!(fleet.post("/api/fleet_overview", &[]).await.status(), 200);
    assert_eq!(fleet.post("/c/us/api/list_nodes", &[]).await.status(), 200);
}

#[tokio::test]
async fn a_page_of_some_clusters_keeps_only_those_polled() {
    let fleet = Fleet::spawn().await;
    let nodes_calls = |sim: &Simulator| {
        sim.calls()
            .counts()
            .get("/api/v1/nodes")
            .copied()
            .unwrap_or(0)
    };
    let stream = http()
        .get(format!("{}/updates?clusters=eu", fleet.console))
        .send()
        .await
        .expect("the stream answers");
    assert_eq!(stream.status(), 200);
    let (eu, us) = (nodes_calls(&fleet.eu), nodes_calls(&fleet.us));
    tokio::time::sleep(Duration::from_millis(3_500)).await;
    assert!(nodes_calls(&fleet.eu) >= eu + 2, "eu is polled while shown");
    assert_eq!(nodes_calls(&fleet.us), us, "us is not shown, and not asked");
    drop(stream);
}

#[tokio::test]
async fn a_confirmation_signed_for_one_cluster_is_refused_on_another() {
    let fleet = Fleet::spawn().await;
    let preview = fleet
        .post("/c/eu/api/preview_collect", &[("node", "")])
        .await;
    let location = preview.headers()["location"]
        .to_str()
        .expect("ascii")
        .to_string();
    assert!(
        location.starts_with("/c/eu/weights?confirm=collect"),
        "{location}"
    );
    let token = reqwest::Url::parse(&format!("http://x{location}"))
        .expect("a path")
        .query_pairs()
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v.into_owned())
        .expect("a token");
    let elsewhere = fleet
        .post(
            "/c/us/api/collect_weights",
            &[("node", ""), ("token", &token)],
        )
        .await;
    assert_eq!(elsewhere.status(), 409, "{:?}", elsewhere.text().await);
    assert!(fleet.us.audit().is_empty());
    // And a receipt of one cluster says nothing on the other's page.
    let receipt_of_eu = fleet.cordon("/c/eu", &node_ids(&fleet.eu)[0]).await;
    let back = receipt_of_eu.headers()["location"]
        .to_str()
        .expect("ascii")
        .to_string();
    let receipt = back
        .split("receipt=")
        .nth(1)
        .expect("a receipt")
        .to_string();
    let on_eu = fleet.page(&format!("/c/eu/nodes?receipt={receipt}")).await;
    assert!(on_eu.has(".receipt"), "shown where it was issued");
    let on_us = fleet.page(&format!("/c/us/nodes?receipt={receipt}")).await;
    assert!(!on_us.has(".receipt"), "not believed on another cluster");
}

#[tokio::test]
async fn read_only_can_be_set_for_one_cluster() {
    let fleet = Fleet::spawn_with(true).await;
    let refused = fleet.cordon("/c/us", &node_ids(&fleet.us)[0]).await;
    assert_eq!(refused.status(), 403);
    let done = fleet.cordon("/c/eu", &node_ids(&fleet.eu)[0]).await;
    assert_eq!(done.status(), 200);
    assert!(fleet.us.audit().is_empty());
    assert_eq!(fleet.eu.audit().len(), 1);
    assert!(!fleet.page("/c/us/nodes").await.has(".node-actions"));
    assert!(fleet.page("/c/eu/nodes").await.has(".node-actions"));
}

#[tokio::test]
async fn the_overview_of_every_cluster_waits_for_none() {
    let fleet = Fleet::spawn().await;
    // Read once, then us stops answering for longer than any page waits.
    let _ = fleet.page("/").await;
    fleet.us.faults().set_delay(Duration::from_secs(30));
    fleet.us.faults().set(Fault::Slow, None);
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let started = Instant::now();
    let page = fleet.page("/").await;
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    let rows = page.all("table.fleet tbody tr");
    assert_eq!(rows.len(), 2);
    let eu = page.text("table.fleet tbody tr:first-child");
    assert!(eu.contains("EU label"), "{eu}");
    let us = page.text("table.fleet tbody tr:last-child");
    assert!(
        us.contains("US label") && !us.contains("not read yet"),
        "{us}"
    );
    assert!(
        page.hrefs("tr[data-cluster=us] a")
            .contains(&"/c/us/nodes".to_string()),
        "us keeps the figures last read"
    );
    // The demo cluster has models not placed; each links to its
    // explanation in its own cluster.
    let not_serving = page.hrefs("ul.not-serving a");
    assert!(!not_serving.is_empty());
    assert!(
        not_serving.iter().all(|h| h.starts_with("/c/eu/models/")),
        "{not_serving:?}"
    );
    // While us hangs, and more of its pages wait than there are turns to
    // render in, eu's pages answer as before.
    let waiting: Vec<_> = (0..12)
        .map(|_| {
            let url = format!("{}/c/us/nodes", fleet.console);
            tokio::spawn(async move { http().get(url).send().await })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = Instant::now();
    for _ in 0..5 {
        let _ = fleet.page("/c/eu/nodes").await;
    }
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "eu's pages waited on us: {:?}",
        started.elapsed()
    );
    for w in waiting {
        w.abort();
    }
}

#[tokio::test]
async fn a_cluster_that_hangs_from_the_start_costs_the_overview_one_second_once() {
    let fleet = Fleet::spawn().await;
    fleet.us.faults().set_delay(Duration::from_secs(30));
    fleet.us.faults().set(Fault::Slow, None);
    let started = Instant::now();
    let page = fleet.page("/").await;
    let first = started.elapsed();
    assert!(first < Duration::from_secs(3), "{first:?}");
    assert!(page.text("tr[data-cluster=us]").contains("not read yet"));
    assert!(page.has("tr[data-cluster=eu] a[href='/c/eu/nodes']"));
    // While that first read of us is still out, nothing waits for it.
    for _ in 0..3 {
        let started = Instant::now();
        let _ = fleet.page("/").await;
        assert!(
            started.elapsed() < Duration::from_millis(500),
            "{:?}",
            started.elapsed()
        );
    }
}

#[tokio::test]
async fn a_node_or_model_page_offers_the_same_name_only_where_it_is_listed() {
    // Two demo clusters: the same names in both.
    let fleet = Fleet::spawn_of(Simulator::demo(), false).await;
    let node = node_ids(&fleet.eu)[0].clone();
    let _ = fleet.page("/c/us/nodes").await;
    let page = fleet.page(&format!("/c/eu/nodes/{node}")).await;
    assert_eq!(page.hrefs("nav.also-in a"), [format!("/c/us/nodes/{node}")]);
    // A name us does not list is offered nowhere.
    fleet.us.cluster().nodes.retain(|n| n.id != node);
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let _ = fleet.page("/c/us/nodes").await;
    let page = fleet.page(&format!("/c/eu/nodes/{node}")).await;
    assert!(!page.has("nav.also-in"));
}

#[tokio::test]
async fn a_wall_of_several_clusters_marks_an_outage_on_its_own_column() {
    let fleet = Fleet::spawn().await;
    let page = fleet.page("/wall?clusters=eu,us&panels=models,nodes").await;
    let columns = page.all("section.wall-column");
    assert_eq!(columns.len(), 2);
    assert!(page.has("section.wall-column[data-cluster=eu] .wall-panel[data-panel=models]"));
    assert!(page.has("section.wall-column[data-cluster=us] .wall-panel[data-panel=nodes]"));
    assert!(!page.has("section.wall-column.stale"));
    // us goes down: its column keeps its panels, marked; eu's is as it was.
    fleet.us.faults().set(Fault::Down, None);
    // The page reads behind, and shows what it has: the failure is there
    // once a read begun after the fault has ended.
    let mut page = fleet.page("/wall?clusters=eu,us").await;
    for _ in 0..20 {
        tokio::time::sleep(Duration::from_millis(300)).await;
        page = fleet.page("/wall?clusters=eu,us&panels=models,nodes").await;
        if page.has("section.wall-column.stale") {
            break;
        }
    }
    assert!(
        page.has("section.wall-column.stale[data-cluster=us] .wall-panel"),
        "{}",
        page.text("section.wall-column[data-cluster=us]")
    );
    assert!(page.has("section.wall-column[data-cluster=us] .stale-note"));
    assert!(!page.has("section.wall-column.stale[data-cluster=eu]"));
    // An id the console does not know is said so, in its own column.
    let page = fleet.page("/wall?clusters=eu,mars").await;
    assert!(
        page.text("section.wall-column[data-cluster=mars]")
            .contains("no cluster")
    );
    // And the console stays ready while one cluster is down.
    let ready = fleet.get("/readyz").await;
    assert_eq!(ready.status(), 200);
}

#[tokio::test]
async fn the_overview_of_one_cluster_is_that_cluster() {
    let sim = Simulator::demo();
    let one = cluster("solo", &sim, false);
    let console = spawn_console_from(console_context_for(&settings(), &[one]).expect("valid"));
    let response = http()
        .get(format!("{console}/"))
        .send()
        .await
        .expect("answers");
    assert_eq!(response.status(), 307);
    assert_eq!(response.headers()["location"], "/c/solo/");
}

#[tokio::test]
async fn the_jump_box_finds_a_name_in_every_cluster_and_links_into_each() {
    // Two demo clusters: the same node in both.
    let fleet = Fleet::spawn_of(Simulator::demo(), false).await;
    let node = node_ids(&fleet.eu)[2].clone();
    let part = &node[node.len() - 6..];
    // The exact name first, the page's own cluster before the other's,
    // each linking into its own pages.
    let page = fleet.page(&format!("/c/us/jump?q={node}")).await;
    let hrefs = page.hrefs("ol.jump-hits li a");
    assert_eq!(
        &hrefs[..2],
        [format!("/c/us/nodes/{node}"), format!("/c/eu/nodes/{node}")],
        "{hrefs:?}"
    );
    // Part of a name: every node that holds it, here first.
    let page = fleet.page(&format!("/c/eu/jump?q={part}")).await;
    let hrefs = page.hrefs("ol.jump-hits li a");
    assert!(hrefs.contains(&format!("/c/eu/nodes/{node}")), "{hrefs:?}");
    assert!(hrefs.contains(&format!("/c/us/nodes/{node}")), "{hrefs:?}");
    assert!(hrefs[0].starts_with("/c/eu/"), "{hrefs:?}");
    assert!(page.text("ol.jump-hits li").contains("node"));
    // Every cluster's, from a page about none of them.
    let page = fleet.page(&format!("/jump?q={part}")).await;
    assert!(
        page.hrefs("ol.jump-hits li a")
            .contains(&format!("/c/us/nodes/{node}"))
    );
    // The header's box is on every page, a GET form to it.
    let nodes = fleet.page("/c/us/nodes").await;
    assert_eq!(
        nodes.one("header.top form.jump").value().attr("action"),
        Some("/c/us/jump")
    );

    // A crafted query as long as an address may be: answered, cut, inert.
    let crafted = format!("<script>{}", "x".repeat(60 * 1024));
    let response = fleet
        .get(&format!("/c/eu/jump?q={}", urlencode(&crafted)))
        .await;
    assert_eq!(response.status(), 200);
    let body = response.text().await.expect("a page");
    assert!(
        !body.contains("<script>xxx"),
        "markup from a link is never markup"
    );
    assert!(!body.contains(&"x".repeat(2_000)), "cut");
    let page = Page::parse(&body);
    let typed = page
        .one("#jump-q")
        .value()
        .attr("value")
        .unwrap_or_default()
        .chars()
        .count();
    assert!(typed <= app::server_fns::jump::QUERY_CHARS, "{typed}");
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
