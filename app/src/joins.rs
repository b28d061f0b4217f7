//! Pure joins across the admin API's answers: what a drain would do, how the
//! rejections of an explanation group, what the cluster looks like at a
//! glance. The terminal leaves these joins to the operator's head.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::admin_api::types::{ModelView, NodeView, Rejection, ReplicaView};
use crate::dated::{Dated, DatedModel, DatedReplica};

/// One rejection that names a node, with the model it was about.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeRejection {
    pub model: String,
    pub rejection: Rejection,
}

/// Whether a replica has any shard on `node`.
pub fn runs_on(replica: &ReplicaView, node: &str) -> bool {
    replica.shards.iter().any(|s| s.node == node)
}

/// A model that would drop below its minimum while a node's replicas move.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AtRisk {
    pub model: String,
    pub ready: i64,
    pub min: i64,
    /// Ready replicas left while the ones on the node are being moved.
    pub ready_during_move: i64,
}

/// What draining `node` means, from data the console already has: the
/// replicas that will move, and the models that fall below their minimum
/// while they do (replacements come up before originals stop, but a model
/// whose only copies are here still has a gap if no room is found).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DrainPreview {
    /// Whether the console lists the node at all: a dialog opens only for
    /// one it does.
    pub listed: bool,
    pub replicas: Vec<DatedReplica>,
    pub at_risk: Vec<AtRisk>,
    /// The moving replicas that no other node could take now (by the
    /// estimate: a node in placement, of the draining node's class, with
    /// the shard's GPUs free and healthy): they would wait.
    #[serde(default)]
    pub stranded: Vec<String>,
    /// The replicas with a shard on one of the node's unhealthy GPUs.
    #[serde(default)]
    pub on_unhealthy: Vec<String>,
    /// Unhealthy lines that name no GPU the console can place: any
    /// replica on the node may sit on one.
    #[serde(default)]
    pub unhealthy_unplaced: usize,
    /// Since when the node has been in its state, and who set it and why,
    /// from the journal: what an uncordon would undo.
    #[serde(default)]
    pub state_since: Option<llmgw_journal::record::StateSince>,
    /// The node's state as llmgw lists it: an uncordon of a draining node
    /// ends its drain.
    #[serde(default)]
    pub state: String,
}

pub fn drain_preview(
    node: &str,
    nodes: &[NodeView],
    models: &[ModelView],
    replicas: &[ReplicaView],
) -> DrainPreview {
    let moving: Vec<ReplicaView> = replicas
        .iter()
        .filter(|r| runs_on(r, node))
        .cloned()
        .collect();
    let at_risk = models
        .iter()
        .filter_map(|m| {
            let ready_here = moving
                .iter()
                .filter(|r| r.model == m.name && r.state == "ready")
                .count() as i64;
            let ready_during_move = m.ready - ready_here;
            (ready_here > 0 && ready_during_move < m.min).then(|| AtRisk {
                model: m.name.clone(),
                ready: m.ready,
                min: m.min,
                ready_during_move,
            })
        })
        .collect();
    let stranded = if moving.is_empty() {
        Vec::new()
    } else {
        stranded(node, nodes, replicas, &moving)
    };
    let (on_unhealthy, unhealthy_unplaced) = nodes
        .iter()
        .find(|n| n.id == node)
        .map(|n| {
            let (_, unplaced) = crate::gpu_strip::strip(n, &moving);
            (crate::gpu_strip::on_unhealthy(n, &moving), unplaced.len())
        })
        .unwrap_or_default();
    let listed = nodes.iter().find(|n| n.id == node);
    DrainPreview {
        listed: listed.is_some(),
        state: listed
            .map(|n| n.state.as_str().to_string())
            .unwrap_or_default(),
        replicas: moving.into_iter().map(Dated::undated).collect(),
        at_risk,
        stranded,
        on_unhealthy,
        unhealthy_unplaced,
        state_since: None,
    }
}

/// Which of `moving` (off `node`) no other node could take now.
fn stranded(
    node: &str,
    nodes: &[NodeView],
    replicas: &[ReplicaView],
    moving: &[ReplicaView],
) -> Vec<String> {
    use crate::estimate::{Need, Placer};
    let classes = nodes
        .iter()
        .find(|n| n.id == node)
        .map(|n| n.classes.clone())
        .unwrap_or_default();
    let mut placer = Placer::new(nodes, replicas, [node]);
    let mut stranded = Vec::new();
    for r in moving {
        // A shard that lists no GPUs needs a number the console does not
        // know: it is not said to wait.
        let shards = r
            .shards
            .iter()
            .filter(|s| s.node == node && !s.gpus.is_empty());
        for shard in shards {
            let need = Need {
                gpus: Some(shard.gpus.len() as i64),
                classes: classes.clone(),
                ..Need::default()
            };
            if placer.place(&need).is_none() {
                stranded.push(r.id.clone());
                break;
            }
        }
    }
    stranded
}

/// One kind of reason and the nodes it hit, counted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReasonGroup {
    /// The reason as llmgw worded it when every member says the same;
    /// else its kind, with the figures taken out ("needs N free GPUs").
    pub reason: String,
    /// The reason with its figures taken out: what the group gathers.
    pub kind: String,
    pub count: usize,
    /// Nodes named by the rejections with this reason (pool-level ones name
    /// none), in order of first appearance.
    pub nodes: Vec<String>,
}

pub fn group_by_reason(rejections: &[Rejection]) -> Vec<ReasonGroup> {
    let mut groups: Vec<ReasonGroup> = Vec::new();
    for r in rejections {
        let kind = crate::reasons::kind_of(&r.reason);
        let group = match groups.iter_mut().position(|g| g.kind == kind) {
            Some(i) => {
                if groups[i].reason != r.reason {
                    groups[i].reason = kind;
                }
                &mut groups[i]
            }
            None => {
                groups.push(ReasonGroup {
                    kind,
                    reason: r.reason.clone(),
                    count: 0,
                    nodes: Vec::new(),
                });
                groups.last_mut().expect("just pushed")
            }
        };
        group.count += 1;
        if !r.node.is_empty() && !group.nodes.contains(&r.node) {
            group.nodes.push(r.node.clone());
        }
    }
    groups.sort_by_key(|g| std::cmp::Reverse(g.count));
    groups
}

/// One node and every reason it failed. Rejections that name no node are
/// grouped under their pool, or under the profile when they name no pool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeGroup {
    /// Empty for rejections that name no node.
    pub node: String,
    pub label: String,
    pub rejections: Vec<Rejection>,
}

pub fn group_by_node(rejections: &[Rejection]) -> Vec<NodeGroup> {
    let mut groups: Vec<NodeGroup> = Vec::new();
    for r in rejections {
        let label = if !r.node.is_empty() {
            r.node.clone()
        } else if !r.pool.is_empty() {
            format!("pool {}", r.pool)
        } else {
            format!("profile {}", r.profile)
        };
        match groups.iter_mut().find(|g| g.label == label) {
            Some(g) => g.rejections.push(r.clone()),
            None => groups.push(NodeGroup {
                node: r.node.clone(),
                label,
                rejections: vec![r.clone()],
            }),
        }
    }
    groups
}

/// Whether a replica or any of its shards reports an error.
pub fn has_error(r: &ReplicaView) -> bool {
    !r.err.is_empty() || r.shards.iter().any(|s| !s.err.is_empty())
}

/// A replica's error as one line: its own, then each shard's with its
/// node ("engine exited with status 1; restart 3 of 5 · on gpu-a100-02:
/// CUDA out of memory").
pub fn error_line(r: &ReplicaView) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    if !r.err.is_empty() {
        parts.push(r.err.clone());
    }
    parts.extend(
        r.shards
            .iter()
            .filter(|s| !s.err.is_empty())
            .map(|s| format!("on {}: {}", s.node, s.err)),
    );
    (!parts.is_empty()).then(|| parts.join(" · "))
}

/// The first error of each model that has one, in one pass over the
/// replicas: a model whose replica reports an error or restarts is
/// failing, whatever its counts say.
pub fn failing_models(replicas: &[ReplicaView]) -> HashMap<&str, String> {
    let mut failing = HashMap::new();
    for r in replicas {
        if let Some(line) = error_line(r) {
            failing.entry(r.model.as_str()).or_insert(line);
        }
    }
    failing
}

/// Fills in whether each of `models` is failing, and with which error.
pub fn mark_failing(models: &mut [DatedModel], replicas: &[ReplicaView]) {
    let failing = failing_models(replicas);
    for m in models {
        let error = failing.get(m.name.as_str()).cloned();
        m.since.get_or_insert_with(Default::default).failing = error;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admin_api::types::{NodeState, Shard};

    fn replica(id: &str, model: &str, state: &str, nodes: &[&str]) -> ReplicaView {
        ReplicaView {
            id: id.into(),
            model: model.into(),
            state: state.into(),
            shards: nodes
                .iter()
                .map(|n| Shard {
                    node: (*n).into(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    fn model(name: &str, ready: i64, min: i64) -> ModelView {
        ModelView {
            name: name.into(),
            ready,
            min,
            total: ready,
            ..Default::default()
        }
    }

    fn rejection(pool: &str, node: &str, reason: &str) -> Rejection {
        Rejection {
            profile: "p".into(),
            pool: pool.into(),
            node: node.into(),
            reason: reason.into(),
        }
    }

    #[test]
    fn a_drain_preview_lists_what_moves_and_who_dips_below_minimum() {
        let replicas = vec![
            replica("r1", "big", "ready", &["a", "b"]),
            replica("r2", "big", "ready", &["c"]),
            replica("r3", "small", "ready", &["a"]),
            replica("r4", "small", "ready", &["d"]),
            replica("r5", "small", "ready", &["e"]),
        ];
        let models = vec![model("big", 2, 2), model("small", 3, 2)];
        let p = drain_preview("a", &[], &models, &replicas);
        // Their shards list no GPUs: how many they need is not known, and
        // none is said to wait.
        assert!(p.stranded.is_empty());
        let ids: Vec<&str> = p.replicas.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["r1", "r3"]);
        assert_eq!(
            p.at_risk,
            vec![AtRisk {
                model: "big".into(),
                ready: 2,
                min: 2,
                ready_during_move: 1
            }]
        );
        assert_eq!(
            drain_preview("zzz", &[], &models, &replicas),
            DrainPreview::default()
        );
    }

    #[test]
    fn homes_are_given_out_in_turn_so_two_replicas_never_share_one_place() {
        let node = |id: &str, state: NodeState, free: i64| NodeView {
            id: id.into(),
            state,
            gpu_free: free,
            gpu_total: 8,
            classes: vec!["h100".into()],
            ..Default::default()
        };
        let on_a = |id: &str, gpus: std::ops::Range<i64>| ReplicaView {
            id: id.into(),
            model: "m".into(),
            state: "ready".into(),
            shards: vec![Shard {
                node: "a".into(),
                gpus: gpus.collect(),
                ..Default::default()
            }],
            ..Default::default()
        };
        let nodes = [
            node("a", NodeState::Ready, 0),
            node("b", NodeState::Ready, 4),
            node("c", NodeState::Cordoned, 8),
        ];
        let replicas = [on_a("r1", 0..4), on_a("r2", 4..8)];
        let p = drain_preview("a", &nodes, &[model("m", 2, 1)], &replicas);
        assert_eq!(p.stranded, ["r2"]);
    }

    #[test]
    fn a_model_whose_replica_reports_an_error_is_failing_with_that_error_first() {
        let mut crashing = replica("r1", "big", "starting", &["a", "b"]);
        crashing.err = "engine exited with status 1; restart 3 of 5".into();
        crashing.shards[1].err = "CUDA out of memory".into();
        let replicas = vec![replica("r0", "big", "ready", &["c"]), crashing];
        let mut models = crate::dated::undated(vec![model("big", 1, 2), model("small", 1, 1)]);
        mark_failing(&mut models, &replicas);
        let failing = |m: &DatedModel| m.since.as_ref().and_then(|s| s.failing.clone());
        assert_eq!(
            failing(&models[0]).as_deref(),
            Some("engine exited with status 1; restart 3 of 5 · on b: CUDA out of memory")
        );
        assert_eq!(failing(&models[1]), None);
    }

    #[test]
    fn rejections_group_by_reason_with_counted_nodes() {
        let rs = vec![
            rejection("h", "n1", "cordoned"),
            rejection("h", "n2", "no room"),
            rejection("h", "n3", "no room"),
            rejection("h", "n3", "no room"),
            rejection("a", "", "wrong class"),
        ];
        let g = group_by_reason(&rs);
        assert_eq!(g[0].reason, "no room");
        assert_eq!(g[0].count, 3);
        assert_eq!(g[0].nodes, ["n2", "n3"]);
        assert_eq!(g.len(), 3);
        assert!(
            g.iter()
                .any(|x| x.reason == "wrong class" && x.nodes.is_empty())
        );
        // Figures apart, one kind; one wording, kept as it was.
        let g = group_by_reason(&[
            rejection("h", "n1", "needs 8 free GPUs, 0 free"),
            rejection("h", "n2", "needs 8 free GPUs, 2 free"),
            rejection("h", "n3", "insufficient disk: needs 55G, 12G free"),
        ]);
        assert_eq!(g[0].reason, "needs N free GPUs, N free");
        assert_eq!(
            (g[0].count, g[1].reason.as_str()),
            (2, "insufficient disk: needs 55G, 12G free")
        );
    }

    #[test]
    fn rejections_group_by_node_and_pool_when_no_node() {
        let rs = vec![
            rejection("h", "n1", "cordoned"),
            rejection("h", "n1", "disk"),
            rejection("a", "", "wrong class"),
            rejection("", "", "no pool fits"),
        ];
        let g = group_by_node(&rs);
        let labels: Vec<&str> = g.iter().map(|x| x.label.as_str()).collect();
        assert_eq!(labels, ["n1", "pool a", "profile p"]);
        assert_eq!(g[0].rejections.len(), 2);
    }
}
