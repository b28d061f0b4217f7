//! One cluster's figures for `/metrics`, from the lists as the console last
//! read them: the counts are the pages' own (`app::figures`), here given
//! the labels and zeros a query expects. Nothing here asks the admin API.

use std::time::{Duration, SystemTime};

use app::admin_api::types::{ModelView, NodeState, NodeView, ReplicaView};
use app::figures::{ModelTotals, NodeTotals, OrphanTotals, ReplicaTotals};
use app::format::ModelStatus;
use app::server::snapshots::{Known, KnownLists, Snapshots};

/// A figure's value with the labels that tell it from its siblings.
pub type Labelled<T> = Vec<(String, T)>;

#[derive(Debug, Default)]
pub struct NodeFigures {
    /// By state: ready, cordoned, draining, another word, or `unknown`.
    pub by_state: Labelled<u64>,
    pub not_reporting: u64,
    pub disk_nearly_full: u64,
    pub gpus: i64,
    pub gpus_free: i64,
    pub gpus_unhealthy: u64,
}

#[derive(Debug, Default)]
pub struct ModelFigures {
    /// By status slug (`not_placed`), every status even when none has it.
    pub by_status: Labelled<u64>,
    /// Every model of the catalog, with the seconds it has not been
    /// serving (0 while it serves).
    pub not_serving_seconds: Labelled<f64>,
}

#[derive(Debug, Default)]
pub struct ReplicaFigures {
    pub replicas: u64,
    pub failing: u64,
}

/// One cluster as a scrape exports it: each list's figures, when its last
/// read answered, and how old each read is.
#[derive(Debug, Default)]
pub struct ClusterScrape {
    pub nodes: Option<NodeFigures>,
    pub models: Option<ModelFigures>,
    pub replicas: Option<ReplicaFigures>,
    pub reclaimable_bytes: Option<i64>,
    /// Each list's name and the age of its last read, answered or not.
    pub ages: Vec<(&'static str, Duration)>,
    /// Whether the last read of each list the pages need (nodes, models,
    /// replicas) answered; `None` before the first. Orphans only add a
    /// figure, as on the wall: their failure is seen by their absence.
    pub up: Option<bool>,
}

/// The state's word as a label: the page's dash is no label value.
pub fn state_label(state: &NodeState) -> String {
    match state {
        NodeState::NotReported => "unknown".into(),
        state => state.as_str().to_string(),
    }
}

fn node_figures(nodes: &[NodeView]) -> NodeFigures {
    let totals = NodeTotals::of(nodes);
    let mut by_state: Labelled<u64> = totals
        .by_state
        .into_iter()
        .map(|(state, n)| (state_label(&state), n as u64))
        .collect();
    // The usual three always, so that a query for cordoned nodes finds a
    // zero rather than nothing.
    for usual in ["ready", "cordoned", "draining"] {
        if !by_state.iter().any(|(s, _)| s == usual) {
            by_state.push((usual.into(), 0));
        }
    }
    by_state.sort();
    NodeFigures {
        by_state,
        not_reporting: totals.unreported as u64,
        disk_nearly_full: totals.disk_nearly_full as u64,
        gpus: totals.gpu_total,
        gpus_free: totals.gpu_free,
        gpus_unhealthy: totals.unhealthy_gpus as u64,
    }
}

fn model_figures(models: &[ModelView], snapshots: &Snapshots, now: SystemTime) -> ModelFigures {
    let totals = ModelTotals::of(models);
    let mut f = ModelFigures {
        by_status: ModelStatus::ALL
            .iter()
            .map(|s| (s.slug().replace('-', "_"), totals.with_status(*s) as u64))
            .collect(),
        not_serving_seconds: Vec::with_capacity(models.len()),
    };
    for m in models {
        let seconds = if ModelStatus::not_serving(m) {
            snapshots
                .not_serving_since(&m.name)
                .and_then(|since| now.duration_since(since).ok())
                .map_or(0.0, |d| d.as_secs_f64())
        } else {
            0.0
        };
        f.not_serving_seconds.push((m.name.clone(), seconds));
    }
    f
}

fn replica_figures(replicas: &[ReplicaView]) -> ReplicaFigures {
    let totals = ReplicaTotals::of(replicas);
    ReplicaFigures {
        replicas: totals.replicas as u64,
        failing: totals.with_errors as u64,
    }
}

/// The list's figures when its last read answered.
fn answered<T, F>(known: &Known<Vec<T>>, figures: impl FnOnce(&[T]) -> F) -> Option<F> {
    known
        .as_ref()
        .and_then(|k| k.answer.as_ref().ok())
        .map(|list| figures(list))
}

impl ClusterScrape {
    pub fn of(snapshots: &Snapshots, now: SystemTime) -> Self {
        let KnownLists {
            nodes,
            models,
            replicas,
            orphans,
        } = snapshots.known();
        let reads = [
            ("nodes", nodes.as_ref().map(|k| (k.answer.is_ok(), k.age))),
            ("models", models.as_ref().map(|k| (k.answer.is_ok(), k.age))),
            (
                "replicas",
                replicas.as_ref().map(|k| (k.answer.is_ok(), k.age)),
            ),
            (
                "orphans",
                orphans.as_ref().map(|k| (k.answer.is_ok(), k.age)),
            ),
        ];
        let read: Vec<_> = reads
            .iter()
            .filter_map(|(list, read)| read.map(|r| (*list, r)))
            .collect();
        Self {
            nodes: answered(&nodes, node_figures),
            models: answered(&models, |m| model_figures(m, snapshots, now)),
            replicas: answered(&replicas, replica_figures),
            reclaimable_bytes: answered(&orphans, |o| OrphanTotals::of(o).reclaimable_bytes),
            ages: read.iter().map(|(list, (_, age))| (*list, *age)).collect(),
            up: (!read.is_empty()).then(|| {
                read.iter()
                    .filter(|(list, _)| *list != "orphans")
                    .all(|(_, (ok, _))| *ok)
            }),
        }
    }
}
