//! What the wall screen shows, worked out once per refresh on the server:
//! counts and short lists sized for a screen read from across a room, and
//! the headline figures over the last days.

use std::collections::HashMap;

use llmgw_journal::Sample;
use serde::{Deserialize, Serialize};

use crate::admin_api::types::{
    ExplainView, ModelView, NodeView, OrphanView, Rejection, ReplicaView,
};
use crate::figures::{NodeTotals, OrphanTotals, disk_nearly_full};
use crate::fixes::is_silent;
use crate::format::{self, ModelStatus};
use crate::joins::{group_by_reason, has_error};
use crate::reasons::{self, Concern, Vocabulary};

/// A replica still starting after this long is worth a look.
pub const STARTING_TOO_LONG_SEC: i64 = 15 * 60;

/// The panels a wall can show, in their order on the screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Panel {
    Nodes,
    Models,
    Trouble,
    Weights,
    Trends,
}

impl Panel {
    pub const ALL: [Self; 5] = [
        Self::Nodes,
        Self::Models,
        Self::Trouble,
        Self::Weights,
        Self::Trends,
    ];

    pub fn slug(self) -> &'static str {
        match self {
            Self::Nodes => "nodes",
            Self::Models => "models",
            Self::Trouble => "trouble",
            Self::Weights => "weights",
            Self::Trends => "trends",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Self::Nodes => "Nodes and GPUs",
            Self::Models => "Models not serving",
            Self::Trouble => "Nodes in trouble",
            Self::Weights => "Reclaimable disk",
            Self::Trends => "Last hours",
        }
    }

    pub fn from_slug(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.slug() == s)
    }
}

/// Which panels, and how many seconds each is shown when they take turns
/// (`/wall?panels=models,nodes&cycle=30`). Unknown names are ignored; none
/// at all means every panel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WallLayout {
    pub panels: Vec<Panel>,
    /// `None`: every chosen panel at once.
    pub cycle_seconds: Option<u64>,
}

impl WallLayout {
    pub const MIN_CYCLE: u64 = 5;

    pub fn from_query(panels: Option<&str>, cycle: Option<&str>) -> Self {
        let mut chosen: Vec<Panel> = Vec::new();
        for p in panels
            .unwrap_or_default()
            .split(',')
            .filter_map(|s| Panel::from_slug(s.trim()))
        {
            if !chosen.contains(&p) {
                chosen.push(p);
            }
        }
        if chosen.is_empty() {
            chosen = Panel::ALL.to_vec();
        }
        let cycle_seconds = cycle
            .and_then(|c| c.trim().parse::<u64>().ok())
            .filter(|c| *c > 0)
            .map(|c| c.max(Self::MIN_CYCLE))
            .filter(|_| chosen.len() > 1);
        Self {
            panels: chosen,
            cycle_seconds,
        }
    }

    /// The link that opens this layout, for a kiosk browser's start page.
    pub fn href(&self) -> String {
        let panels: Vec<&str> = self.panels.iter().map(|p| p.slug()).collect();
        let mut href = format!("/wall?panels={}", panels.join(","));
        if let Some(c) = self.cycle_seconds {
            href.push_str(&format!("&cycle={c}"));
        }
        crate::urls::scoped(&href)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotServing {
    pub model: String,
    /// "not placed", "below minimum", "starting for long".
    pub what: String,
    /// The one line that says why.
    pub why: String,
    /// Since when its status has held, from the journal.
    #[serde(default)]
    pub since: Option<llmgw_journal::record::StateSince>,
    /// Wanted, and no replica of it is ready: it does not serve at all.
    #[serde(default)]
    pub down: bool,
    /// It serves, with fewer replicas ready than wanted. A line that is
    /// neither (a failing or slow replica beside enough ready ones) is
    /// trouble that costs no capacity yet.
    #[serde(default)]
    pub below: bool,
}

impl NotServing {
    /// Whether its line is about the model's status (not placed, below
    /// minimum), which the journal dates, rather than a replica's start.
    pub fn since_is_its_status(&self) -> bool {
        self.what != STARTING_FOR_LONG && self.what != FAILING
    }
}

/// What the wall says of a model with a replica starting for long.
const STARTING_FOR_LONG: &str = "starting for long";
/// What the wall says of a model with a replica that reports an error.
const FAILING: &str = "failing";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trouble {
    pub node: String,
    pub what: Vec<String>,
    /// Since when its first GPU now unhealthy has been, from the journal.
    #[serde(default)]
    pub unhealthy_since: llmgw_journal::record::FaultDate,
}

/// How many of the last hour's records the trouble panel shows: each takes
/// the room of a node in trouble, and the panel must fit a 1080p screen.
pub const RECENT_ROWS: usize = 2;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WallView {
    /// When the console read the data, seconds since the Unix epoch.
    pub taken_at: i64,
    /// The console's build: a page from another build reloads itself.
    pub build: String,
    pub nodes: usize,
    /// Each state with its count, in the order ready, cordoned, draining,
    /// other words, then "-" for nodes that report none.
    pub nodes_by_state: Vec<(String, usize)>,
    /// Nodes whose agent has gone silent.
    pub unreported: usize,
    pub gpu_free: i64,
    pub gpu_total: i64,
    pub unhealthy_gpus: usize,
    pub not_serving: Vec<NotServing>,
    pub troubled: Vec<Trouble>,
    pub reclaimable_bytes: i64,
    pub orphan_nodes: usize,
    /// Oldest first.
    pub trends: Vec<Sample>,
    /// What the journal recorded of the cluster in the last hour, newest
    /// first, a few.
    #[serde(default)]
    pub recent: Vec<llmgw_journal::record::JournalEvent>,
}

/// Which reasons lead a headline: what an operator set first, then the
/// nodes' health, then the configuration, then capacity.
fn tier(concern: Concern) -> u8 {
    match concern {
        Concern::State => 0,
        Concern::Health | Concern::Silent => 1,
        Concern::Class | Concern::Fabric => 2,
        Concern::Other => 3,
        Concern::Disk | Concern::Gpus => 4,
    }
}

/// What the wall says of a model that is not placed: the kind of reason of
/// the highest tier (see [`tier`]), the most frequent within it, with how
/// often, and how many kinds there are. A pool that turns a profile down as
/// a whole while another pool has nodes that were weighed for it was never
/// meant to serve it: noise, left out.
pub fn headline(explain: &ExplainView, words: &Vocabulary) -> Option<String> {
    let weighed: Vec<(&str, &str)> = explain
        .rejections
        .iter()
        .filter(|r| !r.node.is_empty())
        .map(|r| (r.profile.as_str(), r.pool.as_str()))
        .collect();
    let meant: Vec<Rejection> = explain
        .rejections
        .iter()
        .filter(|r| {
            !r.node.is_empty()
                || !weighed
                    .iter()
                    .any(|(profile, pool)| *profile == r.profile && *pool != r.pool)
        })
        .cloned()
        .collect();
    let groups = group_by_reason(if meant.is_empty() {
        &explain.rejections
    } else {
        &meant
    });
    let k = groups.len();
    groups
        .into_iter()
        .enumerate()
        .min_by_key(|(i, g)| (tier(reasons::concern(&g.kind, words)), *i))
        .map(|(_, g)| match k {
            1 => format!("{} (×{})", g.reason, g.count),
            k => format!("{} (×{}, {k} reasons)", g.reason, g.count),
        })
}

/// The lists joined into the wall's figures; `why_not_placed` gives the
/// [`headline`] of a model that is not placed, when its explanation could be
/// read.
pub fn wall_view(
    nodes: &[NodeView],
    models: &[ModelView],
    replicas: &[ReplicaView],
    orphans: &[OrphanView],
    why_not_placed: &dyn Fn(&str) -> Option<String>,
) -> WallView {
    let mut v = WallView {
        nodes: nodes.len(),
        ..WallView::default()
    };
    // Replicas with errors per node they have a shard on, once, rather
    // than every replica scanned for every node.
    let mut failing_on: HashMap<&str, usize> = HashMap::new();
    for r in replicas.iter().filter(|r| has_error(r)) {
        let mut on: Vec<&str> = r.shards.iter().map(|s| s.node.as_str()).collect();
        on.sort_unstable();
        on.dedup();
        for node in on {
            *failing_on.entry(node).or_default() += 1;
        }
    }
    let mut totals = NodeTotals::default();
    for n in nodes {
        totals.add(n);
        let mut what = Vec::new();
        if is_silent(n) {
            what.push(format!(
                "not reported for {}",
                format::or_dash(&n.last_seen_ago)
            ));
        }
        if !n.unhealthy.is_empty() {
            what.push(format::count(
                n.unhealthy.len(),
                "unhealthy GPU",
                "unhealthy GPUs",
            ));
        }
        if disk_nearly_full(n) {
            what.push(format!(
                "disk {}",
                format::disk(n.disk_free_gb, n.disk_total_gb)
            ));
        }
        let failing = failing_on.get(n.id.as_str()).copied().unwrap_or(0);
        if failing > 0 {
            what.push(format!(
                "{} with errors",
                format::count(failing, "replica", "replicas")
            ));
        }
        if !what.is_empty() {
            v.troubled.push(Trouble {
                node: n.id.clone(),
                what,
                unhealthy_since: Default::default(),
            });
        }
    }
    v.nodes_by_state = totals
        .by_state
        .iter()
        .map(|(state, n)| (format::or_dash(state.as_str()), *n))
        .collect();
    v.gpu_free = totals.gpu_free;
    v.gpu_total = totals.gpu_total;
    v.unhealthy_gpus = totals.unhealthy_gpus;
    v.unreported = totals.unreported;
    // The oldest replica not ready of each model, in one pass over the
    // replicas rather than one per model: 4,000 models times their
    // replicas was most of the wall's cost at 20,000 nodes.
    let mut oldest_starting: HashMap<&str, i64> = HashMap::new();
    for r in replicas.iter().filter(|r| r.state != "ready") {
        let oldest = oldest_starting.entry(r.model.as_str()).or_insert(r.age_sec);
        *oldest = (*oldest).max(r.age_sec);
    }
    let failing = crate::joins::failing_models(replicas);
    for m in models {
        let status = ModelStatus::of(m);
        let long_start = oldest_starting
            .get(m.name.as_str())
            .copied()
            .filter(|age| *age >= STARTING_TOO_LONG_SEC);
        let entry = match status {
            // A replica that reports an error or restarts is the story,
            // whatever the counts say.
            _ if failing.contains_key(m.name.as_str()) => Some(NotServing {
                model: m.name.clone(),
                what: FAILING.into(),
                why: failing.get(m.name.as_str()).cloned().unwrap_or_default(),
                since: None,
                down: ModelStatus::down(m),
                below: ModelStatus::below_wanted(m),
            }),
            ModelStatus::NotPlaced => Some(NotServing {
                model: m.name.clone(),
                what: "not placed".into(),
                why: why_not_placed(&m.name).unwrap_or_else(|| "no placement attempted yet".into()),
                since: None,
                down: ModelStatus::down(m),
                below: ModelStatus::below_wanted(m),
            }),
            _ if long_start.is_some() => Some(NotServing {
                model: m.name.clone(),
                what: STARTING_FOR_LONG.into(),
                why: format!(
                    "a replica has been starting for {}",
                    format::duration(long_start.unwrap_or_default())
                ),
                since: None,
                down: ModelStatus::down(m),
                below: ModelStatus::below_wanted(m),
            }),
            ModelStatus::Starting if m.ready < m.min => Some(NotServing {
                model: m.name.clone(),
                what: "below minimum".into(),
                why: format!(
                    "{} of {} ready, {} starting",
                    m.ready,
                    m.min,
                    m.total - m.ready
                ),
                since: None,
                down: ModelStatus::down(m),
                below: ModelStatus::below_wanted(m),
            }),
            _ => None,
        };
        v.not_serving.extend(entry);
    }
    let orphans = OrphanTotals::of(orphans);
    v.orphan_nodes = orphans.nodes;
    v.reclaimable_bytes = orphans.reclaimable_bytes;
    v
}

/// A model's name as a wall has room for: without its organisation
/// (`mistralai/Mixtral-8x7B-Instruct-v0.1` is `Mixtral-8x7B-Instruct-v0.1`),
/// so that a cut falls at its least distinctive end.
pub fn short_model_name(name: &str) -> &str {
    match name.rsplit_once('/') {
        Some((_, short)) if !short.is_empty() => short,
        _ => name,
    }
}

/// The cluster's state in three numbers, for a tab's title and icon.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pulse {
    /// Models wanted with no replica ready.
    pub not_serving: usize,
    /// Models that serve, with fewer replicas ready than wanted.
    #[serde(default)]
    pub below_wanted: usize,
    pub nodes_in_trouble: usize,
}

impl Pulse {
    /// The icon that says it from the tab strip: red when a model does not
    /// serve, amber when one serves below what is wanted or only nodes are
    /// in trouble.
    pub fn icon(self) -> &'static str {
        if self.not_serving > 0 {
            "/favicon-bad.svg"
        } else if self.below_wanted > 0 || self.nodes_in_trouble > 0 {
            "/favicon-warn.svg"
        } else {
            "/favicon.svg"
        }
    }

    /// The icon while the admin API does not answer: the last figures are
    /// no longer news, and a calm icon would say all is well.
    pub const UNREACHABLE_ICON: &'static str = "/favicon-unreachable.svg";

    /// The tab's title while the admin API does not answer.
    pub fn unreachable_title(page: &str) -> String {
        format!("(!) {page} · llmgw console — admin API unreachable")
    }

    /// The tab's title around a page's own: "(3) Nodes · llmgw console — 2
    /// models not serving, 1 below wanted".
    pub fn title(self, page: &str) -> String {
        let (down, below) = (self.not_serving, self.below_wanted);
        let mut said = Vec::new();
        if down > 0 {
            said.push(format::count(
                down,
                "model not serving",
                "models not serving",
            ));
        }
        if below > 0 {
            said.push(if down > 0 {
                format!("{below} below wanted")
            } else {
                format::count(below, "model below wanted", "models below wanted")
            });
        }
        match down + below {
            0 => format!("{page} · llmgw console"),
            n => format!("({n}) {page} · llmgw console — {}", said.join(", ")),
        }
    }
}

impl WallView {
    pub fn pulse(&self) -> Pulse {
        Pulse {
            not_serving: self.not_serving.iter().filter(|m| m.down).count(),
            below_wanted: self.not_serving.iter().filter(|m| m.below).count(),
            nodes_in_trouble: self.troubled.len(),
        }
    }

    pub fn sample(&self) -> Sample {
        Sample {
            at: self.taken_at,
            gpu_free: self.gpu_free,
            gpu_total: self.gpu_total,
            unhealthy_gpus: self.unhealthy_gpus as i64,
            not_serving: self.not_serving.len() as i64,
            nodes_in_trouble: self.troubled.len() as i64,
            reclaimable_bytes: self.reclaimable_bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each model not serving, with its one line as the wall shows it.
    fn not_serving_lines(v: &WallView) -> Vec<(String, String)> {
        v.not_serving
            .iter()
            .map(|n| (n.model.clone(), format!("{}: {}", n.what, n.why)))
            .collect()
    }

    #[test]
    fn a_model_is_named_by_its_distinctive_end() {
        assert_eq!(
            short_model_name("mistralai/Mixtral-8x7B-Instruct-v0.1"),
            "Mixtral-8x7B-Instruct-v0.1"
        );
        assert_eq!(short_model_name("llama-3-8b"), "llama-3-8b");
        assert_eq!(short_model_name("org/"), "org/");
    }

    #[test]
    fn the_layout_is_read_from_the_link_and_written_back() {
        let l = WallLayout::from_query(Some("models,bogus,nodes,models"), Some("30"));
        assert_eq!(l.panels, [Panel::Models, Panel::Nodes]);
        assert_eq!(l.cycle_seconds, Some(30));
        assert_eq!(l.href(), "/wall?panels=models,nodes&cycle=30");
        let all = WallLayout::from_query(None, Some("1"));
        assert_eq!(all.panels, Panel::ALL);
        assert_eq!(all.cycle_seconds, Some(WallLayout::MIN_CYCLE));
        // One panel has nothing to take turns with.
        assert_eq!(
            WallLayout::from_query(Some("trends"), Some("30")).cycle_seconds,
            None
        );
    }

    #[test]
    fn a_failing_replica_counts_once_on_each_node_it_runs_on() {
        use crate::admin_api::types::Shard;
        let node = |id: &str| NodeView {
            id: id.into(),
            state: crate::admin_api::types::NodeState::Ready,
            last_seen_ago: "1s".into(),
            ..Default::default()
        };
        let shard = |node: &str, err: &str| Shard {
            node: node.into(),
            err: err.into(),
            ..Default::default()
        };
        let replica = |shards| ReplicaView {
            shards,
            ..Default::default()
        };
        let replicas = [
            // Two shards on a, one failing: one replica with errors on a and b.
            replica(vec![shard("a", "oom"), shard("a", ""), shard("b", "")]),
            replica(vec![shard("a", ""), shard("c", "")]),
            replica(vec![shard("b", "cuda error")]),
        ];
        let v = wall_view(
            &[node("a"), node("b"), node("c")],
            &[],
            &replicas,
            &[],
            &|_| None,
        );
        let trouble: Vec<(String, Vec<String>)> = v
            .troubled
            .iter()
            .map(|t| (t.node.clone(), t.what.clone()))
            .collect();
        assert_eq!(
            trouble,
            [
                ("a".to_string(), vec!["1 replica with errors".to_string()]),
                ("b".to_string(), vec!["2 replicas with errors".to_string()]),
            ]
        );
    }

    #[test]
    fn the_pulse_names_the_tab_and_colours_its_icon() {
        let calm = Pulse::default();
        assert_eq!(calm.title("Nodes"), "Nodes · llmgw console");
        assert_eq!(calm.icon(), "/favicon.svg");
        let troubled = Pulse {
            nodes_in_trouble: 3,
            ..Pulse::default()
        };
        assert_eq!(troubled.icon(), "/favicon-warn.svg");
        let below = Pulse {
            below_wanted: 1,
            ..Pulse::default()
        };
        assert_eq!(below.icon(), "/favicon-warn.svg");
        assert_eq!(
            below.title("Nodes"),
            "(1) Nodes · llmgw console — 1 model below wanted"
        );
        let down = Pulse {
            not_serving: 2,
            below_wanted: 1,
            nodes_in_trouble: 3,
        };
        assert_eq!(
            down.title("Nodes"),
            "(3) Nodes · llmgw console — 2 models not serving, 1 below wanted"
        );
        assert_eq!(down.icon(), "/favicon-bad.svg");
    }

    #[test]
    fn models_not_serving_say_why_in_one_line() {
        let model = |name: &str, ready, min, total| ModelView {
            name: name.into(),
            ready,
            min,
            total,
            ..Default::default()
        };
        let models = vec![
            model("fine", 2, 2, 2),
            model("stuck", 0, 1, 0),
            model("short", 1, 2, 2),
            model("off", 0, 0, 0),
        ];
        let starting = ReplicaView {
            model: "short".into(),
            state: "starting".into(),
            age_sec: 60,
            ..Default::default()
        };
        let explain = |m: &str| {
            (m == "stuck").then(|| ExplainView {
                model: m.into(),
                placed: false,
                rejections: vec![crate::admin_api::types::Rejection {
                    reason: "needs 8 free GPUs, 0 free".into(),
                    ..Default::default()
                }],
            })
        };
        let why = |m: &str| {
            explain(m)
                .as_ref()
                .and_then(|e| headline(e, &Vocabulary::default()))
        };
        let v = wall_view(&[], &models, &[starting], &[], &why);
        let lines = not_serving_lines(&v);
        assert_eq!(
            lines,
            [
                (
                    "stuck".to_string(),
                    "not placed: needs 8 free GPUs, 0 free (×1)".to_string()
                ),
                (
                    "short".to_string(),
                    "below minimum: 1 of 2 ready, 1 starting".to_string()
                ),
            ]
        );
    }

    #[test]
    fn a_headline_leads_with_what_an_operator_set_and_leaves_out_pools_never_meant() {
        let r = |profile: &str, pool: &str, node: &str, reason: &str| Rejection {
            profile: profile.into(),
            pool: pool.into(),
            node: node.into(),
            reason: reason.into(),
        };
        let words = Vocabulary {
            classes: vec!["h100-80g".into()],
            fabrics: vec!["infiniband".into()],
        };
        let mut explain = ExplainView {
            model: "deepseek".into(),
            placed: false,
            rejections: vec![
                r("tp8", "h100", "h1", "needs 8 free GPUs, 0 free"),
                r("tp8", "h100", "h2", "needs 8 free GPUs, 2 free"),
                r("tp8", "h100", "h3", "needs 8 free GPUs, 6 free"),
                r("tp8", "h100", "h4", "node is cordoned"),
                r("tp8", "a100", "", "pool has no h100-80g GPUs"),
                r("tp8", "l40s", "", "pool has no h100-80g GPUs"),
                r("tp8", "l40s", "", "pool has no h100-80g GPUs"),
                r("tp16", "", "", "no pool offers 16 GPUs over infiniband"),
            ],
        };
        assert_eq!(
            headline(&explain, &words).as_deref(),
            Some("node is cordoned (×1, 3 reasons)")
        );
        explain.rejections.remove(3);
        assert_eq!(
            headline(&explain, &words).as_deref(),
            Some("no pool offers 16 GPUs over infiniband (×1, 2 reasons)")
        );
        explain.rejections.pop();
        assert_eq!(
            headline(&explain, &words).as_deref(),
            Some("needs N free GPUs, N free (×3)")
        );
        // Only pools that refuse it as a whole: that is the story.
        explain.rejections.drain(..3);
        assert_eq!(
            headline(&explain, &words).as_deref(),
            Some("pool has no h100-80g GPUs (×3)")
        );
    }

    #[test]
    fn a_model_starting_for_long_is_told_by_its_own_oldest_replica_not_ready() {
        let model = |name: &str| ModelView {
            name: name.into(),
            ready: 1,
            min: 1,
            total: 2,
            ..Default::default()
        };
        let replica = |model: &str, state: &str, age_sec| ReplicaView {
            model: model.into(),
            state: state.into(),
            age_sec,
            ..Default::default()
        };
        let long = STARTING_TOO_LONG_SEC;
        // Interleaved models; an old ready replica is no start at all.
        let replicas = [
            replica("slow", "starting", 60),
            replica("quick", "ready", long * 4),
            replica("slow", "loading", long + 30),
            replica("quick", "starting", long - 1),
            replica("slow", "ready", long * 9),
        ];
        let v = wall_view(
            &[],
            &[model("quick"), model("slow")],
            &replicas,
            &[],
            &|_| None,
        );
        let lines = not_serving_lines(&v);
        assert_eq!(
            lines,
            [(
                "slow".to_string(),
                format!(
                    "starting for long: a replica has been starting for {}",
                    format::duration(long + 30)
                )
            )]
        );
    }
}
