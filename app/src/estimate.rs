//! What a change would do to placement, worked out from the live data the
//! console holds: what one shard of a profile needs (learnt from the
//! model's running replicas and the figures its rejections quote), what a
//! node can give (its live state), and whether the one would take the
//! other. Pure: the fixes, the drain preview and later the set previews
//! ask it, and it says when it cannot know.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::admin_api::types::{NodeState, NodeView, Rejection, ReplicaView};
use crate::fast_hash::FastMap;
use crate::reasons::{self, Concern, Vocabulary};

/// What one shard of a profile needs of a node, as far as the console can
/// tell. What it cannot tell is `None` or empty, and then not checked,
/// except the GPUs, without which no estimate is made.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Need {
    /// GPUs on one node.
    pub gpus: Option<i64>,
    /// Any one of these GPU classes.
    pub classes: Vec<String>,
    /// Every one of these fabrics.
    pub fabrics: Vec<String>,
    /// Room for the weights, where a rejection quotes it.
    pub disk_gb: Option<i64>,
    /// The nodes a replica of the model already has a shard on: llmgw may
    /// keep replicas apart, which the console cannot tell.
    #[serde(default)]
    pub hosts: Vec<String>,
}

impl Need {
    /// Learns `profile`'s need from the model's own rejections (`all`, of
    /// every profile), the replicas that run it, and the nodes those run on.
    pub fn learn<'n>(
        profile: &str,
        all: &[Rejection],
        replicas: &[&ReplicaView],
        node: &dyn Fn(&str) -> Option<&'n NodeView>,
        words: &Vocabulary,
    ) -> Self {
        let mut need = Need::default();
        if profile.is_empty() {
            // Rejections that name no profile may mix several: nothing
            // learnt from them is known to be this shard's.
            return need;
        }
        let mut classes = BTreeSet::new();
        let mut fabrics = BTreeSet::new();
        for r in all.iter().filter(|r| r.profile == profile) {
            let named_node = node(&r.node);
            if !r.node.is_empty()
                && let Some(g) = reasons::needed_gpus(&r.reason)
            {
                need.gpus = Some(need.gpus.map_or(g, |n| n.max(g)));
            }
            match reasons::concern(&r.reason, words) {
                Concern::Disk => {
                    if let Some(gb) = reasons::quoted_gb(&r.reason) {
                        need.disk_gb = Some(need.disk_gb.map_or(gb, |n| n.max(gb)));
                    }
                }
                Concern::Class => {
                    // "needs a100-80g GPUs, node has a100-40g": the node's own
                    // class is what it has, not what is wanted.
                    let own = named_node.map(|n| n.classes.as_slice()).unwrap_or(&[]);
                    classes.extend(
                        reasons::named(&r.reason, &words.classes)
                            .into_iter()
                            .filter(|c| !own.contains(c)),
                    );
                }
                Concern::Fabric => {
                    let own = named_node.map(|n| n.fabrics.as_slice()).unwrap_or(&[]);
                    fabrics.extend(
                        reasons::named(&r.reason, &words.fabrics)
                            .into_iter()
                            .filter(|f| !own.contains(f)),
                    );
                }
                _ => {}
            }
        }
        for replica in replicas {
            for shard in &replica.shards {
                let g = shard.gpus.len() as i64;
                if g > 0 {
                    need.gpus = Some(need.gpus.map_or(g, |n| n.max(g)));
                }
                if let Some(n) = node(&shard.node) {
                    classes.extend(n.classes.iter().cloned());
                }
                if !need.hosts.contains(&shard.node) {
                    need.hosts.push(shard.node.clone());
                }
            }
        }
        need.classes = classes.into_iter().collect();
        need.fabrics = fabrics.into_iter().collect();
        need
    }
}

/// The GPUs the replicas' shards hold on each node that `on` keeps; `None`
/// for a node where a shard lists no GPUs: it holds some all the same, so
/// the node's use is not known, and its free count is taken as it is.
pub fn gpus_in_use(
    replicas: &[ReplicaView],
    on: impl Fn(&str) -> bool,
) -> FastMap<&str, Option<i64>> {
    let mut in_use = FastMap::default();
    for r in replicas {
        for s in r.shards.iter().filter(|s| on(&s.node)) {
            let used = in_use.entry(s.node.as_str()).or_insert(Some(0));
            *used = used
                .filter(|_| !s.gpus.is_empty())
                .map(|u| u + s.gpus.len() as i64);
        }
    }
    in_use
}

/// What a node can give now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Capacity {
    pub state: NodeState,
    /// Free and healthy.
    pub usable_gpus: i64,
    pub gpu_total: i64,
    /// `None`: the node does not report its disk.
    pub disk_free_gb: Option<i64>,
    pub classes: Vec<String>,
    pub fabrics: Vec<String>,
}

impl Capacity {
    /// `in_use`: the GPUs the replicas' shards hold on the node, where the
    /// replicas are known. Whether llmgw's free count already leaves out
    /// unhealthy GPUs is not said anywhere; taking the lower of the two
    /// readings never counts an unhealthy GPU as usable.
    pub fn of(node: &NodeView, in_use: Option<i64>) -> Self {
        let unhealthy = node.unhealthy.len() as i64;
        let usable = match in_use {
            Some(used) => node.gpu_free.min(node.gpu_total - used - unhealthy),
            None => node.gpu_free - unhealthy,
        };
        Self {
            state: node.state.clone(),
            usable_gpus: usable.max(0),
            gpu_total: node.gpu_total,
            disk_free_gb: (node.disk_total_gb > 0).then_some(node.disk_free_gb),
            classes: node.classes.clone(),
            fabrics: node.fabrics.clone(),
        }
    }

    /// The same node back in placement.
    pub fn uncordoned(mut self) -> Self {
        if self.state.is_cordoned() {
            self.state = NodeState::Ready;
        }
        self
    }

    /// The same node with `bytes` more free on its disk.
    pub fn freed(mut self, bytes: i64) -> Self {
        if let Some(free) = self.disk_free_gb.as_mut() {
            *free += bytes.max(0) / GB;
        }
        self
    }
}

/// The GB of disk figures and reasons, as sizes are shown (binary, like
/// [`crate::format::file_size`]).
pub const GB: i64 = 1 << 30;

/// One thing that keeps a node from taking a shard.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Shortfall {
    /// Out of placement: cordoned, draining, or a state the console does
    /// not know.
    State(String),
    Gpus {
        need: i64,
        usable: i64,
    },
    Disk {
        need: i64,
        free: i64,
    },
    Class {
        need: Vec<String>,
        has: Vec<String>,
    },
    Fabric(String),
    /// A rejection the console cannot check, in llmgw's words.
    Said(String),
}

impl Shortfall {
    pub fn describe(&self) -> String {
        match self {
            Self::State(s) => format!("it is {s}"),
            Self::Gpus { need, usable } => {
                format!("it has {usable} usable GPUs of the {need} a shard needs")
            }
            Self::Disk { need, free } => format!("its disk has {free} of {need} GB"),
            Self::Class { need, has } => format!(
                "its GPUs are {}, not {}",
                crate::format::list_or_dash(has),
                need.join(" or ")
            ),
            Self::Fabric(f) => format!("it has no {f}"),
            Self::Said(reason) => format!("llmgw also says \u{201c}{reason}\u{201d}"),
        }
    }
}

/// Whether a node would take a shard.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    Fits,
    Short(Vec<Shortfall>),
    /// Nothing found against it, but these could not be checked.
    Unknown(Vec<String>),
}

impl Verdict {
    pub fn fits(&self) -> bool {
        matches!(self, Self::Fits)
    }
}

/// Would a node with `cap` take one shard that needs `need`?
pub fn would_take(cap: &Capacity, need: &Need) -> Verdict {
    let mut short = Vec::new();
    let mut unknown = Vec::new();
    if cap.state != NodeState::Ready {
        short.push(Shortfall::State(match &cap.state {
            NodeState::NotReported => "of no reported state".to_string(),
            s => s.as_str().to_string(),
        }));
    }
    match need.gpus {
        Some(_) if cap.gpu_total <= 0 => unknown.push("how many GPUs it has".to_string()),
        Some(g) if cap.usable_gpus < g => short.push(Shortfall::Gpus {
            need: g,
            usable: cap.usable_gpus,
        }),
        Some(_) => {}
        None => unknown.push("how many GPUs a shard needs".to_string()),
    }
    if !need.classes.is_empty() {
        if cap.classes.is_empty() {
            unknown.push("its GPU class".to_string());
        } else if !need.classes.iter().any(|c| cap.classes.contains(c)) {
            short.push(Shortfall::Class {
                need: need.classes.clone(),
                has: cap.classes.clone(),
            });
        }
    }
    for f in &need.fabrics {
        if cap.fabrics.is_empty() {
            unknown.push("its fabrics".to_string());
            break;
        }
        if !cap.fabrics.contains(f) {
            short.push(Shortfall::Fabric(f.clone()));
        }
    }
    if let Some(gb) = need.disk_gb {
        match cap.disk_free_gb {
            Some(free) if free < gb => short.push(Shortfall::Disk { need: gb, free }),
            Some(_) => {}
            None => unknown.push("its free disk".to_string()),
        }
    }
    if !short.is_empty() {
        Verdict::Short(short)
    } else if !unknown.is_empty() {
        Verdict::Unknown(unknown)
    } else {
        Verdict::Fits
    }
}

/// The checks `reason` is about that the estimate does not cover: a fresh
/// check of the node stands in for the others, but these stay in the way
/// whatever the estimate says. A count or size is covered only where the
/// reason states one ("needs 8 free GPUs"), not wherever GPUs are named.
pub fn uncovered(reason: &str, need: &Need, words: &Vocabulary) -> Vec<Concern> {
    reasons::concerns(reason, words)
        .into_iter()
        .filter(|c| match c {
            Concern::State => false,
            Concern::Gpus => need.gpus.is_none() || reasons::needed_gpus(reason).is_none(),
            Concern::Disk => need.disk_gb.is_none() || reasons::quoted_gb(reason).is_none(),
            Concern::Class => need.classes.is_empty(),
            Concern::Fabric => need.fabrics.is_empty(),
            Concern::Health | Concern::Silent | Concern::Other => true,
        })
        .collect()
}

/// Where shards could go now, given out in turn: each home takes what it
/// is given, so two shards of 8 GPUs do not both go to the one node with 8
/// free. The nodes `leaving` (draining, or about to) are never a home.
pub struct Placer<'a> {
    nodes: &'a [NodeView],
    in_use: FastMap<&'a str, Option<i64>>,
    given: FastMap<&'a str, i64>,
    leaving: BTreeSet<&'a str>,
}

impl<'a> Placer<'a> {
    pub fn new(
        nodes: &'a [NodeView],
        replicas: &'a [ReplicaView],
        leaving: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        Self {
            nodes,
            in_use: gpus_in_use(replicas, |_| true),
            given: Default::default(),
            leaving: leaving.into_iter().collect(),
        }
    }

    /// The first node that would take one shard of `need` now, which then
    /// holds its GPUs; `None` where no node would.
    pub fn place(&mut self, need: &Need) -> Option<&'a str> {
        let home = self.nodes.iter().find(|n| {
            // What the node's own figures already rule out is not looked up
            // further: a shard that waits is checked against every node.
            if n.state != NodeState::Ready
                || need.gpus.is_some_and(|g| n.gpu_free.max(0) < g)
                || self.leaving.contains(n.id.as_str())
            {
                return false;
            }
            let used = self.in_use.get(n.id.as_str()).copied().unwrap_or(Some(0));
            let mut cap = Capacity::of(n, used);
            cap.usable_gpus -= self.given.get(n.id.as_str()).copied().unwrap_or(0);
            would_take(&cap, need).fits()
        })?;
        *self.given.entry(home.id.as_str()).or_default() += need.gpus.unwrap_or(0);
        Some(home.id.as_str())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::admin_api::types::Shard;

    fn node(id: &str, state: NodeState, free: i64) -> NodeView {
        NodeView {
            id: id.into(),
            state,
            gpu_free: free,
            gpu_total: 8,
            disk_free_gb: 500,
            disk_total_gb: 3800,
            classes: vec!["h100-80g".into()],
            fabrics: vec!["nvlink".into()],
            ..Default::default()
        }
    }

    /// A rejection of profile tp8 in pool h100 (the fixes' tests use it too).
    pub(crate) fn rejection(node: &str, reason: &str) -> Rejection {
        Rejection {
            profile: "tp8".into(),
            pool: "h100".into(),
            node: node.into(),
            reason: reason.into(),
        }
    }

    fn words() -> Vocabulary {
        Vocabulary {
            classes: vec!["h100-80g".into(), "a100-40g".into()],
            fabrics: vec!["nvlink".into(), "infiniband".into()],
        }
    }

    #[test]
    fn a_need_is_learnt_from_the_figures_and_the_replicas() {
        let nodes = [
            node("a", NodeState::Ready, 2),
            node("b", NodeState::Cordoned, 8),
        ];
        let find = |id: &str| nodes.iter().find(|n| n.id == id);
        let all = [
            rejection("a", "needs 8 free GPUs, 2 free"),
            rejection("b", "node is cordoned"),
            rejection("", "pool has no h100-80g GPUs"),
            rejection("a", "insufficient disk: needs 690G, 12G free"),
            Rejection {
                profile: "other".into(),
                ..rejection("a", "needs 16 free GPUs")
            },
        ];
        let need = Need::learn("tp8", &all, &[], &find, &words());
        assert_eq!(
            need,
            Need {
                gpus: Some(8),
                classes: vec!["h100-80g".into()],
                fabrics: vec![],
                disk_gb: Some(690),
                hosts: vec![],
            }
        );
        let replica = ReplicaView {
            shards: vec![Shard {
                node: "a".into(),
                gpus: vec![0, 1, 2, 3],
                ..Default::default()
            }],
            ..Default::default()
        };
        let only_replicas = Need::learn("tp8", &[], &[&replica], &find, &words());
        assert_eq!(only_replicas.gpus, Some(4));
        assert_eq!(only_replicas.classes, ["h100-80g"]);
    }

    #[test]
    fn a_cordoned_node_with_room_fits_once_uncordoned_and_not_before() {
        let need = Need {
            gpus: Some(8),
            classes: vec!["h100-80g".into()],
            ..Default::default()
        };
        let cap = Capacity::of(&node("b", NodeState::Cordoned, 8), Some(0));
        assert!(
            matches!(would_take(&cap, &need), Verdict::Short(s) if s == [Shortfall::State("cordoned".into())])
        );
        assert!(would_take(&cap.uncordoned(), &need).fits());
    }

    #[test]
    fn unhealthy_gpus_never_count_as_usable() {
        let mut n = node("c", NodeState::Ready, 8);
        n.unhealthy = vec!["GPU 1: Xid 79".into()];
        // Free counts the unhealthy one: it is taken off.
        assert_eq!(Capacity::of(&n, Some(0)).usable_gpus, 7);
        // Free already leaves it out: not taken off twice.
        n.gpu_free = 7;
        assert_eq!(Capacity::of(&n, Some(0)).usable_gpus, 7);
        // Replicas unknown: taken off, to be safe.
        assert_eq!(Capacity::of(&n, None).usable_gpus, 6);
    }

    #[test]
    fn each_shortfall_is_named_and_what_is_unknown_is_said() {
        let need = Need {
            gpus: Some(8),
            classes: vec!["a100-40g".into()],
            fabrics: vec!["infiniband".into()],
            disk_gb: Some(690),
            hosts: vec![],
        };
        let cap = Capacity::of(&node("a", NodeState::Ready, 2), Some(6));
        let Verdict::Short(short) = would_take(&cap, &need) else {
            panic!("short")
        };
        let said: Vec<String> = short.iter().map(Shortfall::describe).collect();
        assert_eq!(
            said,
            [
                "it has 2 usable GPUs of the 8 a shard needs",
                "its GPUs are h100-80g, not a100-40g",
                "it has no infiniband",
                "its disk has 500 of 690 GB",
            ]
        );
        let mut quiet = node("q", NodeState::Ready, 8);
        quiet.disk_total_gb = 0;
        assert_eq!(
            would_take(
                &Capacity::of(&quiet, Some(0)),
                &Need {
                    disk_gb: Some(10),
                    ..Default::default()
                }
            ),
            Verdict::Unknown(vec![
                "how many GPUs a shard needs".into(),
                "its free disk".into()
            ])
        );
    }

    #[test]
    fn freeing_disk_counts_whole_gb() {
        let cap = Capacity::of(&node("a", NodeState::Ready, 8), Some(0)).freed(3 * GB + 5);
        assert_eq!(cap.disk_free_gb, Some(503));
    }

    #[test]
    fn homes_are_given_out_in_turn_never_on_a_leaving_node() {
        let nodes = [
            node("a", NodeState::Ready, 2),
            node("b", NodeState::Cordoned, 8),
            node("c", NodeState::Ready, 8),
            node("d", NodeState::Ready, 8),
        ];
        let need = Need {
            gpus: Some(4),
            ..Default::default()
        };
        // What the nodes' free counts say is in use: none of their GPUs is
        // held by a listed replica, so each gives what it says is free.
        let mut placer = Placer::new(&nodes, &[], ["d"]);
        assert_eq!(placer.place(&need), Some("c"));
        assert_eq!(placer.place(&need), Some("c"), "c had 8: room for two");
        assert_eq!(
            placer.place(&need),
            None,
            "c is full; b is cordoned, d leaving"
        );
        let two = Need {
            gpus: Some(2),
            ..Default::default()
        };
        assert_eq!(placer.place(&two), Some("a"));
    }
}
