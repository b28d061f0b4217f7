//! What changed between two reads of a cluster: the journal's records, worked
//! out from the lists the shared poll already reads. Only what differs is
//! looked at twice, so a still cluster of thousands of nodes costs one pass
//! over each list and writes nothing.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::admin_api::types::{ModelView, NodeView, ReplicaView};
use crate::figures::disk_nearly_full;
use crate::fixes::is_silent;
use crate::format::{DASH, ModelStatus};
use llmgw_journal::event::{Event, Found};
use llmgw_journal::record::{EventKind, JournalEvent, USUAL, storable};

/// One read of the lists the journal follows. `headlines` holds, for the
/// models not placed whose explanation has been read, its headline.
#[derive(Clone, Debug, Default)]
pub struct Reading {
    pub nodes: Option<Arc<Vec<NodeView>>>,
    pub models: Option<Arc<Vec<ModelView>>>,
    pub replicas: Option<Arc<Vec<ReplicaView>>>,
    pub headlines: HashMap<String, String>,
}

impl Reading {
    /// Fills each list that did not answer with `last`'s.
    pub fn carry_forward(&mut self, last: Reading) {
        self.nodes = self.nodes.take().or(last.nodes);
        self.replicas = self.replicas.take().or(last.replicas);
        // The headlines go with the catalog they were read for.
        if self.models.is_none() {
            self.models = last.models;
            self.headlines = last.headlines;
        }
    }
}

/// The records that take `before` to `after`, read at `at` in `cluster`.
/// A list that did not answer in either read is skipped: a failed read is
/// not every node going away.
pub fn between(cluster: &str, before: &Reading, after: &Reading, at: i64) -> Vec<JournalEvent> {
    let mut out = Records::new(at, cluster);
    if let (Some(was), Some(now)) = (&before.nodes, &after.nodes)
        && !Arc::ptr_eq(was, now)
    {
        nodes(was, now, &mut out);
    }
    if let (Some(was), Some(now)) = (&before.models, &after.models) {
        if !Arc::ptr_eq(was, now) {
            models(was, now, &mut out);
        }
        headlines(now, &before.headlines, &after.headlines, &mut out);
    }
    if let (Some(was), Some(now)) = (&before.replicas, &after.replicas)
        && !Arc::ptr_eq(was, now)
    {
        replicas(was, now, &mut out);
    }
    out.rows
}

/// The records of one moment of one cluster, as they are worked out.
struct Records<'a> {
    at: i64,
    cluster: &'a str,
    rows: Vec<JournalEvent>,
}

impl<'a> Records<'a> {
    fn new(at: i64, cluster: &'a str) -> Self {
        Self {
            at,
            cluster,
            rows: Vec::new(),
        }
    }

    fn push(&mut self, event: Event<'_>) {
        self.rows.push(event.record(self.at, self.cluster));
    }
}

/// Items of one list, each beside its namesake in another (if any).
type Pairs<'a, T> = Vec<(&'a T, Option<&'a T>)>;

/// Each item of `now` beside the item of `was` with its key (none: it
/// appeared), and the items of `was` whose key `now` no longer has. Side
/// by side for as long as the two lists keep one order, as llmgw's do from
/// one read to the next; by their keys from where they part. Hashing every
/// key of both lists was most of a period's cost at 5,000 nodes. A key
/// listed twice (by a lying admin API) may sit on both sides of that
/// place: one not found past it is looked for before it too, so that it
/// is not taken to have come or gone.
fn paired<'a, T>(
    was: &'a [T],
    now: &'a [T],
    key: impl Fn(&T) -> &str,
) -> (Pairs<'a, T>, Vec<&'a T>) {
    let same = was
        .iter()
        .zip(now)
        .take_while(|(w, n)| key(w) == key(n))
        .count();
    let mut pairs: Pairs<'a, T> = now[..same]
        .iter()
        .zip(&was[..same])
        .map(|(n, w)| (n, Some(w)))
        .collect();
    let (was_rest, now_rest) = (&was[same..], &now[same..]);
    let before: HashMap<&str, &T> = was_rest.iter().map(|w| (key(w), w)).collect();
    let listed: HashSet<&str> = now_rest.iter().map(&key).collect();
    // The keys before that place are the same in both lists: made only
    // when something seems to have come or gone.
    let mut ahead: Option<HashMap<&str, &T>> = None;
    let mut in_ahead = |k: &str| {
        ahead
            .get_or_insert_with(|| was[..same].iter().map(|w| (key(w), w)).collect())
            .get(k)
            .copied()
    };
    for n in now_rest {
        let old = before.get(key(n)).copied().or_else(|| in_ahead(key(n)));
        pairs.push((n, old));
    }
    let gone = was_rest
        .iter()
        .filter(|w| !listed.contains(key(w)) && in_ahead(key(w)).is_none())
        .collect();
    (pairs, gone)
}

/// Which of a cluster's lists are still to be found (see [`found`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ToFind {
    pub nodes: bool,
    pub models: bool,
    pub replicas: bool,
}

impl ToFind {
    pub const ALL: Self = Self {
        nodes: true,
        models: true,
        replicas: true,
    };

    pub fn any(self) -> bool {
        self != Self::default()
    }

    /// What is still to be found once `reading`'s lists have been: a list
    /// that did not answer is found at a later read.
    pub fn after(self, reading: &Reading) -> Self {
        Self {
            nodes: self.nodes && reading.nodes.is_none(),
            models: self.models && reading.models.is_none(),
            replicas: self.replicas && reading.replicas.is_none(),
        }
    }
}

/// What the record is to start from: each node, model and replica in
/// `reading` whose state is not [`USUAL`], found at `at` (`NodeSeen`,
/// `ModelSeen`, `ReplicaSeen`, the state in `after`), so that no state is
/// ever dated from before it was known. After a short gap, each whose
/// state differs from what the record said before it (`known`: the
/// record's own word, the usual one where it has none; then in `before`,
/// as a change within the gap); the rest keeps its start. Only the lists
/// `lists` names are found.
///
/// Each unhealthy GPU is found likewise (`GpuSeen`), but for those the
/// record already holds as unhealthy (`unhealthy_known`, by node, as the
/// journal keeps the lines: none after a long gap); one it holds that is
/// healthy now recovered within the gap. So a GPU the record has no date
/// for is one that turned since.
pub fn found(
    cluster: &str,
    reading: &Reading,
    at: i64,
    lists: ToFind,
    known: &impl Fn(EventKind, &str) -> Option<String>,
    unhealthy_known: &impl Fn(&str) -> Vec<String>,
) -> Vec<JournalEvent> {
    let mut out = Records::new(at, cluster);
    let finding = |kind, now: &str, name: &str| {
        let was = known(kind, name);
        (was.as_deref().unwrap_or(USUAL) != now).then_some(was)
    };
    if let (true, Some(nodes)) = (lists.nodes, &reading.nodes) {
        for n in nodes.iter() {
            let state = node_state(n);
            if let Some(was) = finding(EventKind::NodeSeen, state, &n.id) {
                let found = Found {
                    was: was.as_deref(),
                    now: state,
                };
                out.push(Event::NodeSeen { node: &n.id, found });
            }
            let held = unhealthy_known(&n.id);
            let now: Vec<String> = n.unhealthy.iter().map(|g| storable(g)).collect();
            for gpu in n.unhealthy.iter().filter(|g| !held.contains(&storable(g))) {
                out.push(Event::GpuSeen { node: &n.id, gpu });
            }
            for gpu in held.iter().filter(|g| !now.contains(g)) {
                out.push(Event::GpuHealthy { node: &n.id, gpu });
            }
        }
    }
    if let (true, Some(models)) = (lists.models, &reading.models) {
        for m in models.iter() {
            let status = ModelStatus::of(m).label();
            if let Some(was) = finding(EventKind::ModelSeen, status, &m.name) {
                let found = Found {
                    was: was.as_deref(),
                    now: status,
                };
                out.push(Event::ModelSeen {
                    model: &m.name,
                    found,
                });
            }
        }
    }
    if let (true, Some(replicas)) = (lists.replicas, &reading.replicas) {
        for r in replicas.iter() {
            if let Some(was) = finding(EventKind::ReplicaSeen, &r.state, &r.id) {
                let found = Found {
                    was: was.as_deref(),
                    now: &r.state,
                };
                out.push(Event::ReplicaSeen {
                    replica: &r.id,
                    model: &r.model,
                    found,
                });
            }
        }
    }
    out.rows
}

/// A `ReplicaGone` at `at` for each of `held` (the replicas of `cluster`
/// the record holds) that `replicas`, the first read after a start, no
/// longer lists: without it, one that went within a gap would be held,
/// and kept past every prune, for good.
pub fn gone_unseen<'a>(
    cluster: &str,
    replicas: &[ReplicaView],
    at: i64,
    held: impl IntoIterator<Item = &'a str>,
) -> Vec<JournalEvent> {
    // `held` as the journal keeps them (see `storable`).
    let listed: HashSet<String> = replicas.iter().map(|r| storable(&r.id)).collect();
    held.into_iter()
        .filter(|id| !listed.contains(*id))
        .map(|replica| {
            let gone = Event::ReplicaGone {
                replica,
                model: None,
                unseen: true,
            };
            gone.record(at, cluster)
        })
        .collect()
}

/// A node's state in the console's words: a dash when not reported.
pub fn node_state(n: &NodeView) -> &str {
    match n.state.as_str() {
        "" => DASH,
        s => s,
    }
}

fn nodes(was: &[NodeView], now: &[NodeView], out: &mut Records<'_>) {
    let (pairs, gone) = paired(was, now, |n| &n.id);
    for (n, old) in pairs {
        let node = n.id.as_str();
        let Some(old) = old else {
            let state = node_state(n);
            out.push(Event::NodeAppeared { node, state });
            // Unhealthy as it appears: dated from then, not from a time
            // the node was not there.
            for gpu in &n.unhealthy {
                out.push(Event::GpuUnhealthy { node, gpu });
            }
            continue;
        };
        if old == n {
            continue;
        }
        if old.state != n.state {
            let (was, now) = (node_state(old), node_state(n));
            out.push(Event::NodeState { node, was, now });
        }
        match (is_silent(old), is_silent(n)) {
            (false, true) => out.push(Event::NodeSilent {
                node,
                last_seen: &n.last_seen_ago,
            }),
            (true, false) => out.push(Event::NodeReporting { node }),
            _ => {}
        }
        for gpu in n.unhealthy.iter().filter(|g| !old.unhealthy.contains(g)) {
            out.push(Event::GpuUnhealthy { node, gpu });
        }
        for gpu in old.unhealthy.iter().filter(|g| !n.unhealthy.contains(g)) {
            out.push(Event::GpuHealthy { node, gpu });
        }
        match (disk_nearly_full(old), disk_nearly_full(n)) {
            (false, true) => out.push(Event::DiskNearlyFull {
                node,
                free: format!("{} of {} GB free", n.disk_free_gb, n.disk_total_gb).into(),
            }),
            (true, false) => out.push(Event::DiskRelieved { node }),
            _ => {}
        }
    }
    for gone in gone {
        out.push(Event::NodeGone { node: &gone.id });
    }
}

/// Ready replicas over the minimum: "1/2".
fn at_minimum(m: &ModelView) -> Cow<'static, str> {
    format!("{}/{}", m.ready, m.min).into()
}

fn models(was: &[ModelView], now: &[ModelView], out: &mut Records<'_>) {
    let (pairs, gone) = paired(was, now, |m| &m.name);
    for (m, old) in pairs {
        let model = m.name.as_str();
        let status = ModelStatus::of(m);
        let Some(old) = old else {
            out.push(Event::ModelAppeared {
                model,
                status: status.label(),
            });
            continue;
        };
        let was_status = ModelStatus::of(old);
        if was_status != status {
            out.push(Event::ModelStatus {
                model,
                was: was_status.label(),
                now: status.label(),
            });
        }
        let (was, now) = (at_minimum(old), at_minimum(m));
        match (ModelStatus::not_serving(old), ModelStatus::not_serving(m)) {
            (false, true) => out.push(Event::BelowMinimum { model, was, now }),
            (true, false) => out.push(Event::BackToMinimum { model, was, now }),
            _ => {}
        }
    }
    for gone in gone {
        out.push(Event::ModelGone { model: &gone.name });
    }
}

/// A headline that changed, for a model still in the catalog whose
/// explanation was read both times: one not read is not known to differ.
fn headlines(
    catalog: &[ModelView],
    was: &HashMap<String, String>,
    now: &HashMap<String, String>,
    out: &mut Records<'_>,
) {
    let mut changed: Vec<(&str, &str, &str)> = now
        .iter()
        .filter_map(|(model, headline)| {
            let old = was.get(model)?;
            (old != headline).then_some((model.as_str(), old.as_str(), headline.as_str()))
        })
        .filter(|(model, _, _)| catalog.iter().any(|m| m.name == *model))
        .collect();
    changed.sort_unstable();
    for (model, was, now) in changed {
        out.push(Event::PlacementReason { model, was, now });
    }
}

/// A replica's error: its own, or else its first shard's.
fn replica_error(r: &ReplicaView) -> Option<Cow<'_, str>> {
    if !r.err.is_empty() {
        return Some(Cow::Borrowed(&r.err));
    }
    r.shards
        .iter()
        .find(|s| !s.err.is_empty())
        .map(|s| format!("shard {} on {}: {}", s.id, s.node, s.err).into())
}

fn replicas(was: &[ReplicaView], now: &[ReplicaView], out: &mut Records<'_>) {
    let (pairs, gone) = paired(was, now, |r| &r.id);
    for (r, old) in pairs {
        let (replica, model) = (r.id.as_str(), r.model.as_str());
        let Some(old) = old else {
            out.push(Event::ReplicaAppeared {
                replica,
                model,
                state: &r.state,
            });
            if let Some(error) = replica_error(r) {
                out.push(Event::ReplicaFailed {
                    replica,
                    model,
                    error,
                });
            }
            continue;
        };
        if old == r {
            continue;
        }
        if old.state != r.state {
            out.push(Event::ReplicaState {
                replica,
                model,
                was: &old.state,
                now: &r.state,
            });
        }
        if let Some(error) = replica_error(r)
            && replica_error(old).as_ref() != Some(&error)
        {
            out.push(Event::ReplicaFailed {
                replica,
                model,
                error,
            });
        }
    }
    for gone in gone {
        out.push(Event::ReplicaGone {
            replica: &gone.id,
            model: Some(&gone.model),
            unseen: false,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admin_api::types::{NodeState, Shard};
    use llmgw_journal::event::GONE_UNSEEN;

    fn node(id: &str, state: NodeState) -> NodeView {
        NodeView {
            id: id.into(),
            state,
            gpu_total: 8,
            disk_free_gb: 500,
            disk_total_gb: 1000,
            last_seen_ago: "2s".into(),
            ..NodeView::default()
        }
    }

    fn reading(
        nodes: Vec<NodeView>,
        models: Vec<ModelView>,
        replicas: Vec<ReplicaView>,
    ) -> Reading {
        Reading {
            nodes: Some(Arc::new(nodes)),
            models: Some(Arc::new(models)),
            replicas: Some(Arc::new(replicas)),
            headlines: HashMap::new(),
        }
    }

    /// The same lists in new allocations, as a new read would give them:
    /// compared item by item, not skipped as the same read.
    fn copied(r: &Reading) -> Reading {
        Reading {
            nodes: r.nodes.as_ref().map(|l| Arc::new(l.as_ref().clone())),
            models: r.models.as_ref().map(|l| Arc::new(l.as_ref().clone())),
            replicas: r.replicas.as_ref().map(|l| Arc::new(l.as_ref().clone())),
            headlines: r.headlines.clone(),
        }
    }

    fn kinds(events: &[JournalEvent]) -> Vec<(EventKind, String)> {
        events
            .iter()
            .map(|e| {
                let who = e
                    .node
                    .clone()
                    .or(e.replica.clone())
                    .or(e.model.clone())
                    .unwrap_or_default();
                (e.kind, who)
            })
            .collect()
    }

    #[test]
    fn a_still_cluster_records_nothing() {
        let a = reading(vec![node("n1", NodeState::Ready)], vec![], vec![]);
        let b = reading(vec![node("n1", NodeState::Ready)], vec![], vec![]);
        assert!(between("c", &a, &b, 10).is_empty());
        assert!(between("c", &a, &copied(&a), 10).is_empty());
    }

    #[test]
    fn nodes_that_come_go_and_change_are_recorded_once_each() {
        let mut sick = node("n2", NodeState::Cordoned);
        sick.unhealthy = vec!["gpu3".into()];
        sick.disk_free_gb = 10;
        let mut silent = node("n3", NodeState::Ready);
        silent.last_seen_ago = "10m".into();
        let a = reading(
            vec![
                node("n1", NodeState::Ready),
                node("n2", NodeState::Ready),
                node("n3", NodeState::Ready),
            ],
            vec![],
            vec![],
        );
        let b = reading(
            vec![sick, silent, node("n4", NodeState::NotReported)],
            vec![],
            vec![],
        );
        let events = between("eu", &a, &b, 42);
        assert_eq!(
            kinds(&events),
            vec![
                (EventKind::NodeState, "n2".into()),
                (EventKind::GpuUnhealthy, "n2".into()),
                (EventKind::DiskNearlyFull, "n2".into()),
                (EventKind::NodeSilent, "n3".into()),
                (EventKind::NodeAppeared, "n4".into()),
                (EventKind::NodeGone, "n1".into()),
            ]
        );
        assert_eq!(events[0].before.as_deref(), Some("ready"));
        assert_eq!(events[0].after.as_deref(), Some("cordoned"));
        assert_eq!(events[1].detail.as_deref(), Some("gpu3"));
        assert_eq!(
            events[4].detail.as_deref(),
            Some(DASH),
            "an unreported state is a dash"
        );
        assert!(events.iter().all(|e| e.at == 42 && e.cluster == "eu"));
        // And back.
        let back = between("eu", &b, &a, 43);
        assert!(kinds(&back).contains(&(EventKind::GpuHealthy, "n2".into())));
        assert!(kinds(&back).contains(&(EventKind::DiskRelieved, "n2".into())));
        assert!(kinds(&back).contains(&(EventKind::NodeReporting, "n3".into())));
    }

    #[test]
    fn lists_that_part_midway_or_change_order_are_compared_by_name() {
        let ready = |id: &str| node(id, NodeState::Ready);
        let a = reading(
            ["n1", "n2", "n3", "n4", "n5"].map(ready).to_vec(),
            vec![],
            vec![],
        );
        // In order up to n2; then n3 went, n9 came in its place, n4 was
        // cordoned and n5 moved up the list.
        let b = reading(
            vec![
                ready("n1"),
                ready("n2"),
                ready("n5"),
                ready("n9"),
                node("n4", NodeState::Cordoned),
            ],
            vec![],
            vec![],
        );
        assert_eq!(
            kinds(&between("eu", &a, &b, 1)),
            vec![
                (EventKind::NodeAppeared, "n9".into()),
                (EventKind::NodeState, "n4".into()),
                (EventKind::NodeGone, "n3".into()),
            ]
        );
        // Read back to front, nothing else changed: nothing to record.
        let mut reversed = a.nodes.as_deref().cloned().unwrap_or_default();
        reversed.reverse();
        let c = reading(reversed, vec![], vec![]);
        assert!(between("eu", &a, &c, 2).is_empty());
        // A node listed twice has neither come nor gone.
        let once = reading(vec![ready("n1"), ready("n2")], vec![], vec![]);
        let twice = reading(vec![ready("n1"), ready("n1"), ready("n2")], vec![], vec![]);
        assert!(between("eu", &once, &twice, 3).is_empty());
        assert!(between("eu", &twice, &once, 4).is_empty());
    }

    #[test]
    fn the_record_starts_from_every_state_found_and_after_a_short_gap_from_what_differs() {
        let model = ModelView {
            name: "m1".into(),
            ..ModelView::default()
        };
        let status = ModelStatus::of(&model).label();
        let replica = |id: &str, state: &str| ReplicaView {
            id: id.into(),
            model: "m1".into(),
            state: state.into(),
            ..ReplicaView::default()
        };
        let faulty = NodeView {
            unhealthy: vec!["gpu 0: XID 79".into()],
            ..node("n1", NodeState::Ready)
        };
        let r = reading(
            vec![faulty, node("n2", NodeState::Cordoned)],
            vec![model],
            vec![replica("r1", "ready"), replica("r2", "starting")],
        );
        let nothing_known = |_: EventKind, _: &str| None;
        let no_gpus = |_: &str| Vec::new();
        let all = found("eu", &r, 7, ToFind::ALL, &nothing_known, &no_gpus);
        assert_eq!(
            kinds(&all),
            vec![
                (EventKind::GpuSeen, "n1".into()),
                (EventKind::NodeSeen, "n2".into()),
                (EventKind::ModelSeen, "m1".into()),
                (EventKind::ReplicaSeen, "r2".into()),
            ],
            "all but the ready ones, and every unhealthy GPU"
        );
        assert_eq!(all[0].detail.as_deref(), Some("gpu 0: XID 79"));
        let all = &all[1..];
        assert_eq!(all[2].after.as_deref(), Some("starting"));
        assert_eq!(
            all[2].model.as_deref(),
            Some("m1"),
            "its model's history has it"
        );
        assert_eq!(all[0].after.as_deref(), Some("cordoned"));
        assert_eq!(all[0].before, None, "found, not seen to change");
        assert_eq!(all[1].after.as_deref(), Some(status));
        assert!(all.iter().all(|e| e.at == 7 && e.cluster == "eu"));
        let known = |kind: EventKind, name: &str| match (kind, name) {
            (EventKind::NodeSeen, _) => Some("ready".to_string()),
            (EventKind::ModelSeen, "m1") => Some(status.to_string()),
            (EventKind::ReplicaSeen, "r2") => Some("starting".to_string()),
            _ => None,
        };
        // GPU 0 was unhealthy before the gap; GPU 1 recovered within it.
        let gpus = |node: &str| match node {
            "n1" => vec!["gpu 0: XID 79".to_string(), "gpu 1: XID 48".to_string()],
            _ => Vec::new(),
        };
        let differs = found("eu", &r, 8, ToFind::ALL, &known, &gpus);
        assert_eq!(
            kinds(&differs),
            vec![
                (EventKind::GpuHealthy, "n1".into()),
                (EventKind::NodeSeen, "n2".into())
            ]
        );
        assert_eq!(differs[0].detail.as_deref(), Some("gpu 1: XID 48"));
        assert_eq!(
            differs[1].change_text(),
            "ready → cordoned",
            "a change within the gap"
        );
        let models_only = ToFind {
            models: true,
            ..ToFind::default()
        };
        let models_only = found("eu", &r, 9, models_only, &nothing_known, &no_gpus);
        assert_eq!(
            kinds(&models_only),
            vec![(EventKind::ModelSeen, "m1".into())]
        );
        let mut to_find = ToFind::ALL;
        to_find = to_find.after(&Reading {
            models: r.models.clone(),
            ..Reading::default()
        });
        assert_eq!(
            to_find,
            ToFind {
                nodes: true,
                replicas: true,
                ..ToFind::default()
            },
            "a list that did not answer is found later"
        );
        assert!(!to_find.after(&r).any());
    }

    #[test]
    fn a_replica_held_but_no_longer_listed_after_a_start_went_unseen() {
        let listed = vec![ReplicaView {
            id: "r1".into(),
            ..ReplicaView::default()
        }];
        let gone = gone_unseen("eu", &listed, 5, ["r1", "r2"]);
        assert_eq!(kinds(&gone), vec![(EventKind::ReplicaGone, "r2".into())]);
        assert_eq!(gone[0].detail.as_deref(), Some(GONE_UNSEEN));
        assert_eq!(gone[0].at, 5);
        // An id with a NUL is held as the journal keeps it: still listed.
        let nul = vec![ReplicaView {
            id: "r\u{0}1".into(),
            ..ReplicaView::default()
        }];
        assert!(gone_unseen("eu", &nul, 5, ["r\u{FFFD}1"]).is_empty());
    }

    #[test]
    fn a_list_that_failed_to_answer_is_not_everything_gone() {
        let a = reading(vec![node("n1", NodeState::Ready)], vec![], vec![]);
        let failed = Reading::default();
        assert!(between("c", &a, &failed, 1).is_empty());
        assert!(between("c", &failed, &a, 2).is_empty());
        // Carried over the failure, the change made meanwhile is seen.
        let mut kept = Reading::default();
        kept.carry_forward(copied(&a));
        let back = reading(vec![node("n1", NodeState::Cordoned)], vec![], vec![]);
        assert_eq!(
            kinds(&between("c", &kept, &back, 3)),
            vec![(EventKind::NodeState, "n1".into())]
        );
    }

    #[test]
    fn models_change_status_and_fall_below_their_minimum() {
        let m = |ready, min, total| ModelView {
            name: "llama".into(),
            ready,
            min,
            total,
            ..ModelView::default()
        };
        let a = reading(vec![], vec![m(2, 2, 2)], vec![]);
        let b = reading(vec![], vec![m(1, 2, 1)], vec![]);
        let events = between("c", &a, &b, 5);
        assert_eq!(
            kinds(&events),
            vec![
                (EventKind::ModelStatus, "llama".into()),
                (EventKind::BelowMinimum, "llama".into()),
            ]
        );
        assert_eq!(events[0].after.as_deref(), Some("not placed"));
        assert_eq!(events[1].after.as_deref(), Some("1/2"));
    }

    #[test]
    fn a_headline_is_compared_only_where_both_reads_have_one() {
        let model = ModelView {
            name: "big".into(),
            min: 1,
            ..ModelView::default()
        };
        let mut a = reading(vec![], vec![model.clone()], vec![]);
        let mut b = reading(vec![], vec![model], vec![]);
        b.headlines.insert("big".into(), "no GPU free (×3)".into());
        assert!(
            between("c", &a, &b, 1).is_empty(),
            "not read before: not known to differ"
        );
        a.headlines.insert("big".into(), "disk full (×3)".into());
        let events = between("c", &a, &b, 1);
        assert_eq!(
            kinds(&events),
            vec![(EventKind::PlacementReason, "big".into())]
        );
        assert_eq!(events[0].after.as_deref(), Some("no GPU free (×3)"));
    }

    #[test]
    fn replicas_appear_fail_and_go() {
        let r = |id: &str, state: &str, shard_err: &str| ReplicaView {
            id: id.into(),
            model: "llama".into(),
            state: state.into(),
            shards: vec![Shard {
                id: "s0".into(),
                node: "n1".into(),
                gpus: vec![0],
                err: shard_err.into(),
            }],
            ..ReplicaView::default()
        };
        let a = reading(
            vec![],
            vec![],
            vec![r("r1", "loading", ""), r("r2", "ready", "")],
        );
        let b = reading(
            vec![],
            vec![],
            vec![
                r("r1", "ready", "CUDA out of memory"),
                r("r3", "loading", ""),
            ],
        );
        let events = between("c", &a, &b, 1);
        assert_eq!(
            kinds(&events),
            vec![
                (EventKind::ReplicaState, "r1".into()),
                (EventKind::ReplicaFailed, "r1".into()),
                (EventKind::ReplicaAppeared, "r3".into()),
                (EventKind::ReplicaGone, "r2".into()),
            ]
        );
        assert_eq!(
            events[1].detail.as_deref(),
            Some("shard s0 on n1: CUDA out of memory")
        );
        assert_eq!(events[1].model.as_deref(), Some("llama"));
        // The same error read again is not a new failure.
        assert!(between("c", &b, &copied(&b), 2).is_empty());
    }
}
