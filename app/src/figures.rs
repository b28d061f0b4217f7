//! A cluster's figures, counted in one place: the overview's cards, the
//! wall's totals (and so the overview of several clusters) and `/metrics`
//! all read these, so that "3 cordoned" or "2 not serving" cannot mean
//! one thing on a page and another on a dashboard. Each list is counted on
//! its own, because `/metrics` has the figures of a list whose last read
//! answered while another's failed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::admin_api::types::{ModelView, NodeState, NodeView, OrphanView, ReplicaView};
use crate::fixes::is_silent;
use crate::format::ModelStatus;
use crate::joins::has_error;

/// The share of a node's model disk under which it counts as nearly full.
const DISK_NEARLY_FULL: f64 = 0.02;

/// Whether `node`'s model disk is nearly full; a total not known is not.
pub fn disk_nearly_full(node: &NodeView) -> bool {
    node.disk_total_gb > 0
        && (node.disk_free_gb as f64) < node.disk_total_gb as f64 * DISK_NEARLY_FULL
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeTotals {
    pub nodes: usize,
    /// Each state seen, with its count: ready, cordoned, draining, other
    /// words, then nodes that report none.
    pub by_state: BTreeMap<NodeState, usize>,
    /// Nodes whose agent has gone silent.
    pub unreported: usize,
    pub gpu_free: i64,
    pub gpu_total: i64,
    pub unhealthy_gpus: usize,
    /// Nodes with at least one unhealthy GPU.
    pub with_unhealthy: usize,
    pub disk_nearly_full: usize,
}

impl NodeTotals {
    pub fn of(nodes: &[NodeView]) -> Self {
        let mut totals = Self::default();
        nodes.iter().for_each(|n| totals.add(n));
        totals
    }

    /// Counts one more node: for a caller that walks the nodes anyway.
    pub fn add(&mut self, n: &NodeView) {
        self.nodes += 1;
        *self.by_state.entry(n.state.clone()).or_default() += 1;
        self.gpu_free += n.gpu_free;
        self.gpu_total += n.gpu_total;
        self.unhealthy_gpus += n.unhealthy.len();
        self.with_unhealthy += usize::from(!n.unhealthy.is_empty());
        self.unreported += usize::from(is_silent(n));
        self.disk_nearly_full += usize::from(disk_nearly_full(n));
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelTotals {
    pub models: usize,
    /// The statuses models have; a status none has is absent.
    pub by_status: BTreeMap<ModelStatus, usize>,
    /// Models wanted with no replica ready.
    pub down: usize,
    /// Models that serve, with fewer replicas ready than wanted.
    pub below_wanted: usize,
}

impl ModelTotals {
    pub fn of(models: &[ModelView]) -> Self {
        let mut totals = Self {
            models: models.len(),
            ..Self::default()
        };
        for m in models {
            *totals.by_status.entry(ModelStatus::of(m)).or_default() += 1;
            totals.down += usize::from(ModelStatus::down(m));
            totals.below_wanted += usize::from(ModelStatus::below_wanted(m));
        }
        totals
    }

    pub fn with_status(&self, status: ModelStatus) -> usize {
        self.by_status.get(&status).copied().unwrap_or(0)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicaTotals {
    pub replicas: usize,
    /// Replicas that, or one of whose shards, report an error.
    pub with_errors: usize,
}

impl ReplicaTotals {
    pub fn of(replicas: &[ReplicaView]) -> Self {
        Self {
            replicas: replicas.len(),
            with_errors: replicas.iter().filter(|r| has_error(r)).count(),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrphanTotals {
    /// Nodes with at least one orphaned file.
    pub nodes: usize,
    pub files: usize,
    /// What collecting every orphaned weight would free; a size not known
    /// counts as none.
    pub reclaimable_bytes: i64,
}

impl OrphanTotals {
    pub fn of(orphans: &[OrphanView]) -> Self {
        Self {
            nodes: orphans.iter().filter(|o| !o.paths.is_empty()).count(),
            files: orphans.iter().map(|o| o.paths.len()).sum(),
            reclaimable_bytes: orphans.iter().map(|o| o.bytes.max(0)).sum(),
        }
    }
}

/// Every figure of a cluster whose four lists were read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterFigures {
    pub nodes: NodeTotals,
    pub models: ModelTotals,
    pub replicas: ReplicaTotals,
    pub orphans: OrphanTotals,
}

impl ClusterFigures {
    pub fn of(
        nodes: &[NodeView],
        models: &[ModelView],
        replicas: &[ReplicaView],
        orphans: &[OrphanView],
    ) -> Self {
        Self {
            nodes: NodeTotals::of(nodes),
            models: ModelTotals::of(models),
            replicas: ReplicaTotals::of(replicas),
            orphans: OrphanTotals::of(orphans),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admin_api::types::Shard;

    fn node(state: NodeState, unhealthy: usize, disk: (i64, i64)) -> NodeView {
        NodeView {
            state,
            gpu_total: 8,
            gpu_free: 2,
            unhealthy: (0..unhealthy).map(|gpu| gpu.to_string()).collect(),
            disk_free_gb: disk.0,
            disk_total_gb: disk.1,
            ..Default::default()
        }
    }

    #[test]
    fn nodes_are_counted_by_state_in_the_order_an_operator_reads_them() {
        let totals = NodeTotals::of(&[
            node(NodeState::NotReported, 0, (0, 0)),
            node(NodeState::Other("maintenance".into()), 0, (0, 0)),
            node(NodeState::Cordoned, 2, (1, 100)),
            node(NodeState::Ready, 1, (50, 100)),
            node(NodeState::Cordoned, 0, (0, 0)),
        ]);
        let states: Vec<(&str, usize)> = totals
            .by_state
            .iter()
            .map(|(s, n)| (s.as_str(), *n))
            .collect();
        assert_eq!(
            states,
            [("ready", 1), ("cordoned", 2), ("maintenance", 1), ("", 1)]
        );
        assert_eq!(
            (totals.nodes, totals.gpu_total, totals.gpu_free),
            (5, 40, 10)
        );
        assert_eq!((totals.unhealthy_gpus, totals.with_unhealthy), (3, 2));
        // 1 GB free of 100 is under 2 %; a total not known is not full.
        assert_eq!(totals.disk_nearly_full, 1);
    }

    #[test]
    fn models_are_counted_by_status_and_by_what_they_lack() {
        let model = |ready, min, total| ModelView {
            ready,
            min,
            total,
            ..Default::default()
        };
        let totals = ModelTotals::of(&[
            model(1, 1, 1),
            model(0, 0, 0),
            model(0, 2, 0),
            model(1, 2, 2),
        ]);
        assert_eq!(totals.models, 4);
        assert_eq!(totals.with_status(ModelStatus::Stopped), 1);
        assert_eq!(totals.with_status(ModelStatus::NotPlaced), 1);
        assert_eq!((totals.down, totals.below_wanted), (1, 1));
        assert_eq!(totals.by_status.values().sum::<usize>(), 4);
    }

    #[test]
    fn a_replica_counts_as_failing_by_its_own_error_or_a_shards() {
        let shard_error = ReplicaView {
            shards: vec![Shard {
                err: "CUDA out of memory".into(),
                ..Default::default()
            }],
            ..Default::default()
        };
        let own_error = ReplicaView {
            err: "engine exited".into(),
            ..Default::default()
        };
        let totals = ReplicaTotals::of(&[shard_error, own_error, ReplicaView::default()]);
        assert_eq!((totals.replicas, totals.with_errors), (3, 2));
    }

    #[test]
    fn orphans_without_files_or_sizes_free_nothing() {
        let orphans = [
            OrphanView {
                paths: vec!["/a".into(), "/b".into()],
                bytes: 3_000,
                ..Default::default()
            },
            OrphanView {
                paths: vec!["/c".into()],
                bytes: -1,
                ..Default::default()
            },
            OrphanView::default(),
        ];
        let totals = OrphanTotals::of(&orphans);
        assert_eq!(
            (totals.nodes, totals.files, totals.reclaimable_bytes),
            (2, 3, 3_000)
        );
    }
}
