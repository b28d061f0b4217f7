//! Explanations that name their fix: for each kind, a cluster where the
//! live data supports it shows it on both the explain page and the node page,
//! one where it does not shows none, and a reason worded unlike the
//! simulator's still gets it. Each explanation also turns another node down
//! for lack of one GPU ([`NEED`]): what tells the console what a shard needs.

use std::time::{Duration, Instant};

use app::admin_api::types::{ExplainView, NodeState, OrphanView, Rejection};
use app::{format, urls};
use llmgw_console::simulator::Cluster;

use crate::support::helpers::{TestApp, scoped};
use crate::support::html::Page;

/// A node with nothing to fix: ready, healthy, reporting, no orphans, no
/// idle replica. Each test adds the one condition it is about.
const NODE: &str = "gpu-l40s-03";
/// The other node the explanation names, and why: a shard needs one GPU.
const NEED: (&str, &str) = ("gpu-l40s-01", "needs 1 free GPUs, 0 free");

/// What the pages say about one rejection of one model on [`NODE`].
struct Shown {
    /// `data-fix` of every hint beside the rejection on the explain page.
    placement: Vec<String>,
    /// The same, on the node page's rejection table.
    node_page: Vec<String>,
    /// Every hint's text on the explain page.
    sentences: Vec<String>,
    /// The explain page's headline over its rejections.
    outlook: String,
    page: Page,
}

/// Sets up a cluster whose only explanation of `model` is one rejection on
/// [`NODE`] with `reason`, after `adjust` changed the cluster, and reads both
/// pages.
async fn shown(reason: &str, adjust: impl FnOnce(&mut Cluster)) -> Shown {
    let app = TestApp::spawn().await;
    // One whose rejections a node page shows: short of its wanted count.
    let model = app
        .lists()
        .models
        .into_iter()
        .find(app::server::rejection_index::worth_explaining)
        .expect("a model short of its count")
        .name;
    {
        let mut cluster = app.simulator.cluster();
        let node = cluster
            .nodes
            .iter_mut()
            .find(|n| n.id == NODE)
            .expect("the node");
        assert_eq!(node.state, NodeState::Ready);
        assert!(node.unhealthy.is_empty());
        cluster
            .orphans
            .retain(|o| o.node != NODE && o.node != NEED.0);
        // The node's own replicas were used a moment ago.
        let now = Instant::now();
        for r in cluster.replicas.iter_mut() {
            r.last_used = Some(now);
        }
        for explain in cluster.explains.values_mut() {
            explain
                .rejections
                .retain(|r| r.node != NODE && r.node != NEED.0);
        }
        cluster.explains.insert(
            model.clone(),
            ExplainView {
                model: model.clone(),
                placed: false,
                rejections: vec![
                    Rejection {
                        profile: "single".into(),
                        pool: "l40s".into(),
                        node: NODE.into(),
                        reason: reason.into(),
                    },
                    Rejection {
                        profile: "single".into(),
                        pool: "l40s".into(),
                        node: NEED.0.into(),
                        reason: NEED.1.into(),
                    },
                ],
            },
        );
        adjust(&mut cluster);
    }
    let kinds = |page: &Page, css: &str| -> Vec<String> {
        page.all(css)
            .into_iter()
            .filter_map(|li| li.value().attr("data-fix").map(str::to_string))
            .collect()
    };
    let page = app.parsed(&urls::placement(&model)).await;
    let node_page = app.settled_page(&urls::node(NODE)).await;
    Shown {
        placement: kinds(&page, "table.rejections li.fix"),
        node_page: kinds(&node_page, "table.rejections li.fix"),
        sentences: page.texts("table.rejections li.fix"),
        outlook: page.text(".outlook-sentence"),
        page,
    }
}

fn node_mut(cluster: &mut Cluster) -> &mut app::admin_api::types::NodeView {
    cluster
        .nodes
        .iter_mut()
        .find(|n| n.id == NODE)
        .expect("the node")
}

fn assert_only(shown: &Shown, kind: &str) {
    assert_eq!(shown.placement, [kind], "{:?}", shown.sentences);
    assert_eq!(shown.node_page, [kind], "the node page shows the same");
}

fn assert_none(shown: &Shown) {
    assert!(shown.placement.is_empty(), "{:?}", shown.sentences);
    assert!(shown.node_page.is_empty(), "{:?}", shown.node_page);
    assert_no_fix(shown);
}

fn assert_no_fix(shown: &Shown) {
    assert!(
        shown.outlook.starts_with("No rejection has a fix"),
        "{}",
        shown.outlook
    );
}

fn cordon(cluster: &mut Cluster) {
    node_mut(cluster).state = NodeState::Cordoned;
}

#[tokio::test]
async fn a_cordoned_node_offers_uncordon_where_it_would_then_take_the_profile() {
    let shown_ = shown("node is cordoned", cordon).await;
    assert_only(&shown_, "uncordon");
    assert!(
        shown_.page.has(&format!(
            "li.fix.in-reach a[aria-label=\"Uncordon {NODE}\"]"
        )),
        "the action is right there: {:?}",
        shown_.sentences
    );
    assert_eq!(
        shown_.outlook,
        format!(
            "1 of 2 rejections has a fix in reach; the best: uncordoning {NODE} would remove 1 \
             of 2."
        )
    );
    // Worded as another llmgw might: the live state decides.
    assert_only(
        &shown("excluded: marked unschedulable by an operator", cordon).await,
        "uncordon",
    );
    // The reason says cordoned, but the node is ready again: the row says
    // so, and offers nothing.
    let back = shown("node is cordoned", |_| {}).await;
    assert_only(&back, "no-longer-true");
    assert!(
        back.sentences[0].starts_with(&format!("no longer true: {NODE} is ready")),
        "{:?}",
        back.sentences
    );
    assert_no_fix(&back);
}

#[tokio::test]
async fn an_uncordon_that_would_not_place_the_model_is_never_offered() {
    // Cordoned, and turned down for something an uncordon does not change.
    let anti = shown(
        "anti-affinity: already runs a replica of this model",
        cordon,
    )
    .await;
    assert_only(&anti, "uncordon");
    assert!(!anti.page.has("li.fix.in-reach"), "{:?}", anti.sentences);
    assert!(
        anti.sentences[0].contains("uncordoning alone would not place single here"),
        "{:?}",
        anti.sentences
    );
    assert_no_fix(&anti);
    // Cordoned, with every GPU taken.
    let full = shown("node is cordoned", |cluster| {
        cordon(cluster);
        node_mut(cluster).unhealthy = (0..4).map(|g| format!("GPU {g}: Xid 79")).collect();
    })
    .await;
    assert!(
        full.sentences[0].contains("it has 0 usable GPUs of the 1 a shard needs"),
        "{:?}",
        full.sentences
    );
    assert!(!full.page.has("li.fix a[aria-label^=\"Uncordon\"]"));
    assert_no_fix(&full);
}

fn orphans_of(bytes: i64) -> impl FnOnce(&mut Cluster) {
    move |cluster: &mut Cluster| {
        node_mut(cluster).disk_free_gb = 12;
        cluster.orphans.push(OrphanView {
            node: NODE.into(),
            paths: vec!["/var/lib/llmgw/cache/sha256-0a1b/old/model.safetensors".into()],
            bytes,
        });
    }
}

#[tokio::test]
async fn a_node_short_of_disk_that_holds_orphans_offers_their_collection() {
    let bytes = 28_454_158_336; // 26.5 GB
    let shown_ = shown("insufficient disk: needs 55G, 12G free", orphans_of(bytes)).await;
    assert_only(&shown_, "collect");
    let sentence = &shown_.sentences[0];
    assert!(sentence.contains(&format::file_size(bytes)), "{sentence}");
    assert!(sentence.contains("it needs 43 GB more"), "{sentence}");
    assert!(!sentence.contains("enough"), "{sentence}");
    assert!(
        shown_
            .page
            .hrefs("li.fix a")
            .contains(&scoped(&urls::collect_dialog(Some(NODE), None))),
        "the collection dialog for that node"
    );
    assert_no_fix(&shown_);
    // Enough, and worded as another llmgw might.
    let enough = shown(
        "model volume too small: 35 GiB wanted, 12 GiB available",
        orphans_of(bytes),
    )
    .await;
    assert_only(&enough, "collect");
    assert!(
        enough.sentences[0].contains("enough"),
        "{:?}",
        enough.sentences
    );
    assert!(enough.outlook.contains(&format!(
        "the best: collecting orphaned weights on {NODE} would remove 1 of 2"
    )));
    // Enough room, but the node is out of placement: collecting alone does
    // not place it.
    let fenced = shown(
        "model volume too small: 35 GiB wanted, 12 GiB available",
        |cluster| {
            orphans_of(bytes)(cluster);
            cordon(cluster);
        },
    )
    .await;
    let collect = fenced
        .sentences
        .iter()
        .find(|s| s.starts_with("collecting"))
        .expect("the collection is named");
    assert!(collect.contains("but it is cordoned"), "{collect}");
    assert_no_fix(&fenced);
    // No orphans there: nothing to collect.
    assert_none(&shown("insufficient disk: needs 55G, 12G free", |_| {}).await);
    // Orphans there, but the rejection is about something they cannot help.
    assert_none(&shown("needs 4 free GPUs, 0 free", orphans_of(bytes)).await);
}

fn unhealthy(cluster: &mut Cluster) {
    node_mut(cluster).unhealthy = vec!["GPU 2: Xid 79, fallen off the bus".into()];
}

#[tokio::test]
async fn a_node_short_of_gpus_names_its_unhealthy_ones() {
    let shown_ = shown("needs 4 free GPUs, 3 free", unhealthy).await;
    assert_only(&shown_, "unhealthy");
    assert!(shown_.sentences[0].contains("GPU 2: Xid 79, fallen off the bus"));
    assert_only(
        &shown("only 3 of 4 accelerators usable", unhealthy).await,
        "unhealthy",
    );
    assert_none(&shown("needs 4 free GPUs, 3 free", |_| {}).await);
}

fn idle_for(secs: u64) -> impl FnOnce(&mut Cluster) {
    move |cluster: &mut Cluster| {
        let replica = cluster
            .replicas
            .iter_mut()
            .find(|r| r.view.shards.iter().any(|s| s.node == NODE))
            .expect("a replica on the node");
        replica.last_used = Instant::now().checked_sub(Duration::from_secs(secs));
    }
}

#[tokio::test]
async fn a_node_short_of_gpus_names_replicas_idle_for_hours() {
    let shown_ = shown("needs 4 free GPUs, 3 free", idle_for(3 * 3600)).await;
    assert_only(&shown_, "idle");
    let sentence = &shown_.sentences[0];
    assert!(sentence.contains("idle 3 h 0 m"), "{sentence}");
    assert_only(
        &shown("not enough free devices", idle_for(3 * 3600)).await,
        "idle",
    );
    assert_none(&shown("needs 4 free GPUs, 3 free", idle_for(30)).await);
}

fn silent(cluster: &mut Cluster) {
    node_mut(cluster).last_seen_ago = "12m30s".into();
}

#[tokio::test]
async fn a_node_that_has_not_reported_says_since_when() {
    let shown_ = shown("needs 4 free GPUs, 3 free", silent).await;
    assert_only(&shown_, "unreported");
    assert!(
        shown_.sentences[0].contains("12m30s"),
        "{:?}",
        shown_.sentences
    );
    assert!(
        shown_
            .page
            .hrefs("li.fix a")
            .contains(&scoped(&urls::node(NODE)))
    );
    assert_only(&shown("heartbeat missing", silent).await, "unreported");
    assert_none(&shown("needs 4 free GPUs, 3 free", |_| {}).await);
}
