//! What would change a rejection, found from the live data the console
//! already holds: the node's state, the orphaned weights it keeps, its
//! unhealthy GPUs, the replicas idling on it, when it last reported.
//!
//! A reason's wording is llmgw's and may change, so it only ever narrows
//! which kind of fix is worth showing (a disk rejection is not helped by an
//! idle replica); whether a fix exists is decided by the joined data alone.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::admin_api::types::{NodeState, NodeView, OrphanView, Rejection, ReplicaView};
use crate::format;
use crate::joins::runs_on;

/// A replica unused for this long is worth naming as a holder of GPUs.
pub const IDLE_FOR_HOURS_SEC: i64 = 3600;
/// A node whose agent has been silent this long has not reported.
pub const SILENT_SEC: i64 = 120;
/// The GB of disk figures and reasons, as sizes are shown (binary, like
/// [`format::file_size`]), so "frees 26.5 GB; it needs 43 GB more" compares
/// like with like.
const GB: i64 = 1 << 30;

/// Whether a node's agent has gone silent: the fixes name it, the wall
/// counts it.
pub fn is_silent(node: &NodeView) -> bool {
    node.state == NodeState::NotReported
        || format::parse_duration(&node.last_seen_ago).is_some_and(|s| s >= SILENT_SEC)
}

/// What the console knows around the nodes some rejections name: those
/// nodes, their orphaned weights, and the replicas idling on them. Sent with
/// a page so that the browser works out the same fixes as the server.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Surroundings {
    pub nodes: Vec<NodeView>,
    pub orphans: Vec<OrphanView>,
    /// Only replicas idle for hours, with a shard on one of `nodes`.
    pub idle_replicas: Vec<ReplicaView>,
}

impl Surroundings {
    /// The part of the cluster's lists that concerns the nodes `named`.
    pub fn around(
        named: &dyn Fn(&str) -> bool,
        nodes: &[NodeView],
        orphans: &[OrphanView],
        replicas: &[ReplicaView],
    ) -> Self {
        Self {
            nodes: nodes.iter().filter(|n| named(&n.id)).cloned().collect(),
            orphans: orphans
                .iter()
                .filter(|o| named(&o.node) && !o.paths.is_empty())
                .cloned()
                .collect(),
            idle_replicas: replicas
                .iter()
                .filter(|r| r.idle_sec >= IDLE_FOR_HOURS_SEC)
                .filter(|r| r.shards.iter().any(|s| named(&s.node)))
                .cloned()
                .collect(),
        }
    }

    pub fn index(&self) -> Index<'_> {
        Index {
            nodes: self.nodes.iter().map(|n| (n.id.as_str(), n)).collect(),
            orphans: self.orphans.iter().map(|o| (o.node.as_str(), o)).collect(),
            surroundings: self,
        }
    }
}

/// [`Surroundings`] by node id, built once per render.
pub struct Index<'a> {
    nodes: HashMap<&'a str, &'a NodeView>,
    orphans: HashMap<&'a str, &'a OrphanView>,
    surroundings: &'a Surroundings,
}

/// One thing that would change a rejection, or explain it further.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Fix {
    /// The node is out of placement by an operator's hand.
    Uncordon { node: String, state: NodeState },
    /// Collecting the node's orphaned weights frees `bytes` (0: size not
    /// reported); `short_gb` is how much more room the rejection asked for
    /// than the node has, when the reason says how much it needs.
    Collect {
        node: String,
        bytes: i64,
        short_gb: Option<i64>,
    },
    /// GPUs kept out of placement, one line each with why.
    UnhealthyGpus { node: String, gpus: Vec<String> },
    /// Replicas unused for hours holding GPUs on the node.
    IdleReplicas {
        node: String,
        replicas: Vec<IdleReplica>,
    },
    /// The node's agent is silent (`last_seen` as the server says it) or
    /// the node is no longer listed (`None`).
    Unreported {
        node: String,
        last_seen: Option<String>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdleReplica {
    pub id: String,
    pub model: String,
    pub idle_sec: i64,
}

/// Which resource a reason is about, as far as its words tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Concern {
    Disk,
    Gpus,
    Other,
}

fn concern(reason: &str) -> Concern {
    let r = reason.to_lowercase();
    let any = |words: &[&str]| words.iter().any(|w| r.contains(w));
    if any(&[
        "disk",
        "space",
        "storage",
        "volume",
        "filesystem",
        "model dir",
        "cache dir",
    ]) {
        Concern::Disk
    } else if any(&["memory", " ram"]) {
        Concern::Other
    } else if any(&["gpu", "accelerator", "device", "cuda"]) {
        Concern::Gpus
    } else {
        Concern::Other
    }
}

/// The largest size a reason quotes, in GB ("needs 141G", "141 GiB", "1.2TB"):
/// what the rejected model asked room for.
fn quoted_gb(reason: &str) -> Option<i64> {
    let bytes = reason.as_bytes();
    let mut best: Option<f64> = None;
    let mut i = 0;
    while i < bytes.len() {
        // A figure starts a word: the 80 of "a100-80g" is a GPU class.
        let starts_word =
            i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || b"-_./".contains(&bytes[i - 1]));
        if !bytes[i].is_ascii_digit() || !starts_word {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
            i += 1;
        }
        let number: Option<f64> = reason[start..i].parse().ok();
        let rest = reason[i..].trim_start();
        let unit: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect::<String>()
            .to_lowercase();
        let scale = match unit.as_str() {
            "t" | "tb" | "tib" => Some(1000.0),
            "g" | "gb" | "gib" => Some(1.0),
            "m" | "mb" | "mib" => Some(0.001),
            _ => None,
        };
        if let (Some(n), Some(scale)) = (number, scale) {
            best = Some(best.map_or(n * scale, |b: f64| b.max(n * scale)));
        }
    }
    best.map(|gb| gb.ceil() as i64)
}

impl Index<'_> {
    /// A named node as it is now.
    pub fn node(&self, id: &str) -> Option<&NodeView> {
        self.nodes.get(id).copied()
    }

    /// Every fix for `rejection`, best first; none for one that names no node.
    pub fn fixes(&self, rejection: &Rejection) -> Vec<Fix> {
        let id = rejection.node.as_str();
        if id.is_empty() {
            return Vec::new();
        }
        let node_id = id.to_string();
        let Some(node) = self.nodes.get(id) else {
            return vec![Fix::Unreported {
                node: node_id,
                last_seen: None,
            }];
        };
        let mut fixes = Vec::new();
        if node.state.is_cordoned() {
            fixes.push(Fix::Uncordon {
                node: node_id.clone(),
                state: node.state.clone(),
            });
        }
        let concern = concern(&rejection.reason);
        if concern == Concern::Disk
            && let Some(orphans) = self.orphans.get(id)
        {
            let known_free = (node.disk_total_gb > 0).then_some(node.disk_free_gb);
            let short_gb = quoted_gb(&rejection.reason)
                .zip(known_free)
                .map(|(need, free)| (need - free).max(0));
            fixes.push(Fix::Collect {
                node: node_id.clone(),
                bytes: orphans.bytes.max(0),
                short_gb,
            });
        }
        if concern == Concern::Gpus {
            if !node.unhealthy.is_empty() {
                fixes.push(Fix::UnhealthyGpus {
                    node: node_id.clone(),
                    gpus: node.unhealthy.clone(),
                });
            }
            let idle: Vec<IdleReplica> = self
                .surroundings
                .idle_replicas
                .iter()
                .filter(|r| runs_on(r, id))
                .map(|r| IdleReplica {
                    id: r.id.clone(),
                    model: r.model.clone(),
                    idle_sec: r.idle_sec,
                })
                .collect();
            if !idle.is_empty() {
                fixes.push(Fix::IdleReplicas {
                    node: node_id.clone(),
                    replicas: idle,
                });
            }
        }
        if is_silent(node) {
            fixes.push(Fix::Unreported {
                node: node_id,
                last_seen: Some(node.last_seen_ago.clone()),
            });
        }
        fixes
    }
}

impl Fix {
    pub fn node(&self) -> &str {
        match self {
            Self::Uncordon { node, .. }
            | Self::Collect { node, .. }
            | Self::UnhealthyGpus { node, .. }
            | Self::IdleReplicas { node, .. }
            | Self::Unreported { node, .. } => node,
        }
    }

    /// Whether taking this action from the console would, by what the
    /// console knows, remove the rejection.
    pub fn in_reach(&self) -> bool {
        match self {
            Self::Uncordon { .. } => true,
            Self::Collect {
                bytes,
                short_gb: Some(short),
                ..
            } => *bytes > 0 && *bytes >= short.saturating_mul(GB),
            _ => false,
        }
    }

    /// The fix as one line an operator reads beside the rejection.
    pub fn sentence(&self) -> String {
        match self {
            Self::Uncordon { node, state } => {
                format!("{node} is {state}: uncordon {node} to let placement use it")
            }
            Self::Collect {
                node,
                bytes,
                short_gb,
            } => {
                let frees = if *bytes > 0 {
                    format!("frees {}", format::file_size(*bytes))
                } else {
                    "frees an unreported amount".to_string()
                };
                let need = match short_gb {
                    Some(0) => "; it already has the room it was asked for".to_string(),
                    Some(short) if self.in_reach() => {
                        format!("; it needs {short} GB more: enough")
                    }
                    Some(short) => format!("; it needs {short} GB more"),
                    None => String::new(),
                };
                format!("collecting orphaned weights on {node} {frees}{need}")
            }
            Self::UnhealthyGpus { node, gpus } => format!(
                "{} on {node} kept out of placement: {}",
                format::count(gpus.len(), "unhealthy GPU", "unhealthy GPUs"),
                gpus.join("; ")
            ),
            Self::IdleReplicas { node, replicas } => format!(
                "GPUs on {node} held by {} idle for hours: {}",
                format::count(replicas.len(), "replica", "replicas"),
                replicas
                    .iter()
                    .map(|r| format!(
                        "{} ({}) idle {}",
                        r.id,
                        r.model,
                        format::duration(r.idle_sec)
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Self::Unreported {
                node,
                last_seen: Some(seen),
            } => format!(
                "{node} has not reported since {} ago: its agent may be down",
                format::or_dash(seen)
            ),
            Self::Unreported {
                node,
                last_seen: None,
            } => format!("{node} is no longer listed by the control plane"),
        }
    }

    /// The action as a verb phrase, for the page's headline.
    fn gerund(&self) -> String {
        match self {
            Self::Uncordon { node, .. } => format!("uncordoning {node}"),
            Self::Collect { node, .. } => format!("collecting orphaned weights on {node}"),
            _ => String::new(),
        }
    }

    fn same_action(&self, other: &Fix) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other) && self.node() == other.node()
    }
}

/// One action in reach and how many rejections it would remove.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Remedy {
    pub fix: Fix,
    pub removes: usize,
}

/// What the fixes add up to, over a set of rejections.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outlook {
    pub rejections: usize,
    /// Rejections with an action in reach.
    pub in_reach: usize,
    /// Rejections with only a lead (unhealthy GPUs, idle replicas, a silent
    /// node, or not enough to collect).
    pub with_lead: usize,
    /// Actions in reach, the one that removes most first.
    pub remedies: Vec<Remedy>,
}

impl Outlook {
    pub fn of(rejections: &[Rejection], index: &Index<'_>) -> Self {
        let mut outlook = Self {
            rejections: rejections.len(),
            ..Self::default()
        };
        for r in rejections {
            let fixes = index.fixes(r);
            let reach: Vec<&Fix> = fixes.iter().filter(|f| f.in_reach()).collect();
            if !reach.is_empty() {
                outlook.in_reach += 1;
            } else if !fixes.is_empty() {
                outlook.with_lead += 1;
            }
            for fix in reach {
                match outlook.remedies.iter_mut().find(|m| m.fix.same_action(fix)) {
                    Some(m) => m.removes += 1,
                    None => outlook.remedies.push(Remedy {
                        fix: fix.clone(),
                        removes: 1,
                    }),
                }
            }
        }
        outlook
            .remedies
            .sort_by_key(|m| std::cmp::Reverse(m.removes));
        outlook
    }

    /// The page's headline: how many rejections have a fix in reach, and the
    /// best one.
    pub fn sentence(&self) -> String {
        let n = self.rejections;
        match (self.remedies.first(), self.with_lead) {
            (None, 0) => "No rejection has a fix the console can see.".to_string(),
            (None, k) => format!(
                "No rejection has a fix in reach from here; {k} of {n} {} a lead, below.",
                if k == 1 { "has" } else { "have" }
            ),
            (Some(best), k) => format!(
                "{} of {n} {} {} a fix in reach; the best: {} would remove {} of {n}.{}",
                self.in_reach,
                if n == 1 { "rejection" } else { "rejections" },
                if self.in_reach == 1 { "has" } else { "have" },
                best.fix.gerund(),
                best.removes,
                match k {
                    0 => String::new(),
                    k => format!(
                        " {k} more {} a lead, below.",
                        if k == 1 { "has" } else { "have" }
                    ),
                }
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_read_in_any_usual_unit() {
        assert_eq!(
            quoted_gb("insufficient disk: needs 141G, 12G free"),
            Some(141)
        );
        assert_eq!(quoted_gb("wants 1.5 TB of model storage"), Some(1500));
        assert_eq!(quoted_gb("141 GiB required, 12 GiB available"), Some(141));
        assert_eq!(quoted_gb("needs 8 free GPUs, 6 free"), None);
        assert_eq!(quoted_gb("a100-80g needed"), None);
    }

    #[test]
    fn the_words_only_narrow_the_kind() {
        assert_eq!(concern("insufficient disk: needs 55G"), Concern::Disk);
        assert_eq!(
            concern("not enough free space on the model volume"),
            Concern::Disk
        );
        assert_eq!(concern("needs 8 free GPUs, 6 free"), Concern::Gpus);
        assert_eq!(concern("only 6 of 8 accelerators usable"), Concern::Gpus);
        assert_eq!(concern("insufficient memory: needs 300G"), Concern::Other);
        assert_eq!(concern("anti-affinity"), Concern::Other);
    }

    fn node(id: &str, state: NodeState) -> NodeView {
        NodeView {
            id: id.into(),
            state,
            gpu_total: 8,
            disk_free_gb: 12,
            disk_total_gb: 3800,
            last_seen_ago: "1s".into(),
            ..Default::default()
        }
    }

    fn rejection(node: &str, reason: &str) -> Rejection {
        Rejection {
            profile: "p".into(),
            pool: "h".into(),
            node: node.into(),
            reason: reason.into(),
        }
    }

    fn world() -> Surroundings {
        let mut sick = node("sick", NodeState::Ready);
        sick.unhealthy = vec!["GPU 5: Xid 79".into()];
        let mut silent = node("silent", NodeState::Ready);
        silent.last_seen_ago = "5m0s".into();
        let idle = ReplicaView {
            id: "r-1".into(),
            model: "m".into(),
            idle_sec: 5 * 3600,
            shards: vec![crate::admin_api::types::Shard {
                node: "busy".into(),
                ..Default::default()
            }],
            ..Default::default()
        };
        let nodes = vec![
            node("cordoned", NodeState::Cordoned),
            node("full", NodeState::Ready),
            node("roomy", NodeState::Ready),
            sick,
            silent,
            node("busy", NodeState::Ready),
        ];
        let orphans = vec![
            OrphanView {
                node: "full".into(),
                paths: vec!["a".into()],
                bytes: 26_500_000_000,
            },
            OrphanView {
                node: "roomy".into(),
                paths: vec!["b".into()],
                bytes: 200_000_000_000,
            },
        ];
        Surroundings::around(&|_| true, &nodes, &orphans, &[idle])
    }

    #[test]
    fn each_kind_of_fix_comes_from_the_data() {
        let w = world();
        let ix = w.index();
        let fixes = |node: &str, reason: &str| ix.fixes(&rejection(node, reason));
        assert!(matches!(
            fixes("cordoned", "whatever llmgw says")[..],
            [Fix::Uncordon { .. }]
        ));
        let collect = fixes("full", "insufficient disk: needs 55G, 12G free");
        assert_eq!(
            collect,
            [Fix::Collect {
                node: "full".into(),
                bytes: 26_500_000_000,
                short_gb: Some(43)
            }]
        );
        assert!(!collect[0].in_reach());
        assert!(
            collect[0].sentence().ends_with("it needs 43 GB more"),
            "{}",
            collect[0].sentence()
        );
        assert!(
            fixes(
                "roomy",
                "not enough space on the model volume: 141 GiB wanted"
            )[0]
            .in_reach()
        );
        // The same node, rejected for something its orphans cannot help.
        assert!(fixes("full", "needs 8 free GPUs, 6 free").is_empty());
        assert!(matches!(
            fixes("sick", "only 6 of 8 accelerators usable")[..],
            [Fix::UnhealthyGpus { .. }]
        ));
        assert!(matches!(
            fixes("busy", "needs 2 free GPUs, 0 free")[..],
            [Fix::IdleReplicas { .. }]
        ));
        assert!(matches!(
            fixes("silent", "anything")[..],
            [Fix::Unreported { .. }]
        ));
        assert!(matches!(
            fixes("gone", "anything")[..],
            [Fix::Unreported {
                last_seen: None,
                ..
            }]
        ));
        assert!(fixes("", "pool has no GPUs").is_empty());
    }

    #[test]
    fn the_outlook_puts_the_action_that_removes_most_first() {
        let w = world();
        let rejections = vec![
            rejection("cordoned", "node is cordoned"),
            rejection("roomy", "insufficient disk: needs 141G, 12G free"),
            rejection("roomy", "insufficient disk: needs 55G, 12G free"),
            rejection("full", "insufficient disk: needs 55G, 12G free"),
            rejection("", "pool has no h100 GPUs"),
        ];
        let o = Outlook::of(&rejections, &w.index());
        assert_eq!((o.in_reach, o.with_lead), (3, 1));
        assert_eq!(o.remedies[0].removes, 2);
        assert_eq!(
            o.sentence(),
            "3 of 5 rejections have a fix in reach; the best: collecting orphaned weights on \
             roomy would remove 2 of 5. 1 more has a lead, below."
        );
    }
}
