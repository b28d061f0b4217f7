//! Since when each node, model and replica has been in its present state,
//! and who cordoned or drained a node through a console and why: kept in
//! memory from the journal (its newest records of each at start, then what
//! is added each period, by this console or another on the same database),
//! so a page of 20,000 nodes asks the database nothing.

use std::collections::HashMap;

use crate::Outcome;
use crate::event::{Attempt, Event};
use crate::record::USUAL;
use crate::record::{ATTEMPT_LEAD, EventKind, FaultDate, JournalEvent, StateSince, storable};

/// A gap in the record this short (a restart, an upgrade) is bridged: a
/// state that is the same on both sides of it keeps its start. A change
/// and its undoing both within the gap are missed, as within one poll.
pub const BRIDGED_GAP: i64 = 600;

const UNHEALTHY: &str = "unhealthy";

#[cfg(test)]
use crate::event::RESUMED;

/// How much older than a replica its date may be: the age llmgw gave is
/// that of the last read of the list, which may be a period or more old
/// (longer while llmgw does not answer).
const AGE_SLACK: i64 = BRIDGED_GAP;

#[derive(Debug, Default)]
pub struct SinceIndex {
    /// The newest record applied: the next read starts after it.
    pub last_id: i64,
    /// Each cluster's newest start of recording after a long gap (or
    /// ever): nothing before it is known to have held since.
    started: HashMap<String, i64>,
    /// Each cluster's newest start of recording, after any gap: a state
    /// that differs from the record's changed within the gap, and is
    /// known only since then.
    resumed: HashMap<String, i64>,
    nodes: HashMap<(String, String), Mark>,
    models: HashMap<(String, String), Mark>,
    replicas: HashMap<(String, String), Mark>,
    /// Each node's GPUs seen to turn unhealthy and not seen healthy since,
    /// by the line llmgw gives for the GPU.
    gpus: HashMap<(String, String), HashMap<String, Mark>>,
    changes: HashMap<(String, String), Change>,
}

#[derive(Debug)]
struct Mark {
    at: i64,
    state: String,
    /// Found so at `at` (see `EventKind::NodeSeen`), not seen to begin.
    found: bool,
}

#[derive(Debug)]
struct Change {
    at: i64,
    state: String,
    actor: Option<String>,
    reason: Option<String>,
}

/// `name` of `cluster` is now in `state`, since `at`; `found` when it
/// was found so as recording started rather than seen to begin.
fn track(
    marks: &mut HashMap<(String, String), Mark>,
    cluster: &str,
    name: &str,
    (at, state, found): (i64, &str, bool),
) {
    let mark = Mark {
        at,
        state: state.to_string(),
        found,
    };
    marks.insert((cluster.to_string(), name.to_string()), mark);
}

fn untrack(marks: &mut HashMap<(String, String), Mark>, cluster: &str, name: &str) {
    marks.remove(&(cluster.to_string(), name.to_string()));
}

/// The key of what llmgw calls `name`, as the journal keeps it.
fn named(cluster: &str, name: &str) -> (String, String) {
    (cluster.to_string(), storable(name))
}

impl SinceIndex {
    /// Takes in `events`, oldest first. Names are as the journal keeps
    /// them already.
    pub fn apply(&mut self, events: &[JournalEvent]) {
        for e in events {
            self.last_id = self.last_id.max(e.id);
            let Some(event) = e.event() else { continue };
            let (c, at) = (e.cluster.as_str(), e.at);
            let seen = |state| (at, state, false);
            match event {
                Event::RecordingStarted { resumed, .. } => {
                    if !resumed {
                        self.started.insert(c.to_string(), at);
                    }
                    self.resumed.insert(c.to_string(), at);
                }
                Event::NodeSeen { node, found } => {
                    track(&mut self.nodes, c, node, (at, found.now, true));
                }
                Event::ModelSeen { model, found } => {
                    track(&mut self.models, c, model, (at, found.now, true));
                }
                Event::ReplicaSeen { replica, found, .. } => {
                    track(&mut self.replicas, c, replica, (at, found.now, true));
                }
                // A node that goes, or appears (again), starts its GPUs'
                // record afresh: its unhealthy ones follow its appearance.
                Event::NodeAppeared { node, state } => {
                    self.gpus.remove(&(c.to_string(), node.to_string()));
                    track(&mut self.nodes, c, node, seen(state));
                }
                Event::NodeState { node, now, .. } => track(&mut self.nodes, c, node, seen(now)),
                Event::NodeGone { node } => {
                    self.gpus.remove(&(c.to_string(), node.to_string()));
                    untrack(&mut self.nodes, c, node);
                }
                Event::GpuUnhealthy { node, gpu } | Event::GpuSeen { node, gpu } => {
                    let mark = Mark {
                        at,
                        state: UNHEALTHY.into(),
                        found: e.kind == EventKind::GpuSeen,
                    };
                    let gpus = self.gpus.entry((c.to_string(), node.to_string()));
                    gpus.or_default().insert(gpu.to_string(), mark);
                }
                // Only GPUs unhealthy now are followed, so that lines llmgw
                // no longer sends do not pile up.
                Event::GpuHealthy { node, gpu } => {
                    let k = (c.to_string(), node.to_string());
                    if let Some(gpus) = self.gpus.get_mut(&k) {
                        gpus.remove(gpu);
                        if gpus.is_empty() {
                            self.gpus.remove(&k);
                        }
                    }
                }
                Event::ModelAppeared { model, status } => {
                    track(&mut self.models, c, model, seen(status));
                }
                Event::ModelStatus { model, now, .. } => {
                    track(&mut self.models, c, model, seen(now));
                }
                Event::ModelGone { model } => untrack(&mut self.models, c, model),
                Event::ReplicaAppeared { replica, state, .. } => {
                    track(&mut self.replicas, c, replica, seen(state));
                }
                Event::ReplicaState { replica, now, .. } => {
                    track(&mut self.replicas, c, replica, seen(now));
                }
                Event::ReplicaGone { replica, .. } => untrack(&mut self.replicas, c, replica),
                Event::Attempt(a) => self.take_attempt(c, at, &a),
                _ => {}
            }
        }
    }

    /// Takes in an attempt through a console: one that changed a node's
    /// state is the cause of that state (see [`SinceIndex::node`]). Taken
    /// in twice (at once from the audit, then from the record), it says
    /// the same.
    pub fn apply_attempt(&mut self, e: &JournalEvent) {
        if let Some(Event::Attempt(a)) = e.event() {
            self.take_attempt(&e.cluster, e.at, &a);
        }
    }

    fn take_attempt(&mut self, cluster: &str, at: i64, a: &Attempt<'_>) {
        if a.outcome != Outcome::Done {
            return;
        }
        // Named as the journal keeps it: one taken at once from the audit
        // has llmgw's name.
        if let (Some(node), Some(state)) = (a.node, a.state) {
            self.changes.insert(
                named(cluster, node),
                Change {
                    at,
                    state: state.to_string(),
                    actor: Some(a.actor.to_string()),
                    reason: a.note.as_deref().map(str::to_string),
                },
            );
        }
    }

    /// Since when `node` of `cluster` has been `state` (llmgw's word).
    pub fn node(&self, cluster: &str, node: &str, state: &str) -> Option<StateSince> {
        let k = named(cluster, node);
        let mark = self.current(cluster, self.nodes.get(&k));
        let Some(mut since) = self.since(cluster, mark, state) else {
            // The record has not taken the state in yet: a change to it
            // through a console since what the record last says of the
            // node is its cause, and says who and why at once.
            return self
                .changes
                .get(&k)
                .filter(|c| c.state == state && mark.is_none_or(|m| c.at >= m.at))
                .map(|c| StateSince {
                    at: c.at,
                    at_least: false,
                    by: c.actor.clone(),
                    reason: c.reason.clone(),
                    checked: 0,
                });
        };
        // The console's change is the cause of a state seen to begin about
        // when it was made, or, where the start is not known, of a state
        // it was made within. One made long after the state began (a
        // second cordon of a cordoned node) is not its cause.
        // A state only found so: a change made before the finding may be
        // its cause, one made after it is not (the state held already).
        if let Some(change) = self.changes.get(&k)
            && change.state == state
            && if since.at_least {
                change.at <= since.at
            } else {
                (change.at - since.at).abs() <= ATTEMPT_LEAD
            }
        {
            since.by = change.actor.clone();
            since.reason = change.reason.clone();
        }
        Some(since)
    }

    /// Since when the GPU of `node` that llmgw describes as `gpu` has been
    /// unhealthy.
    pub fn gpu(&self, cluster: &str, node: &str, gpu: &str) -> FaultDate {
        let mark = self.current(cluster, self.gpu_mark(cluster, node, gpu));
        match (mark, self.resumed.contains_key(cluster)) {
            (Some(mark), _) => self
                .since(cluster, Some(mark), UNHEALTHY)
                .map_or(FaultDate::Unknown, FaultDate::Since),
            // Every GPU unhealthy as the record began, or resumed, was
            // found then (`GpuSeen`): one it has no date for turned later.
            (None, true) => FaultDate::New,
            (None, false) => FaultDate::Unknown,
        }
    }

    fn gpu_mark(&self, cluster: &str, node: &str, gpu: &str) -> Option<&Mark> {
        let k = named(cluster, node);
        self.gpus.get(&k).and_then(|g| g.get(&storable(gpu)))
    }

    /// The GPUs of `node` the record holds as unhealthy since its last
    /// long gap, as the journal keeps their lines: what a start after a
    /// short one need not find again.
    pub fn unhealthy_gpus(&self, cluster: &str, node: &str) -> Vec<String> {
        let Some(gpus) = self.gpus.get(&named(cluster, node)) else {
            return Vec::new();
        };
        gpus.iter()
            .filter(|(_, m)| self.current(cluster, Some(m)).is_some())
            .map(|(line, _)| line.clone())
            .collect()
    }

    /// Since when `model` of `cluster` has had `status` (the console's
    /// word: "not placed").
    pub fn model(&self, cluster: &str, model: &str, status: &str) -> Option<StateSince> {
        self.since(cluster, self.models.get(&named(cluster, model)), status)
    }

    /// Since when `replica` of `cluster` has been `state` (llmgw's word),
    /// given how old llmgw says it is (`age`, seconds, at `now`; 0 or less
    /// when not known). A date from before the replica began is not its
    /// own: llmgw gave its id to a new one that the record did not see
    /// come (it was in the same state), so nothing is said.
    pub fn replica(
        &self,
        cluster: &str,
        replica: &str,
        state: &str,
        age: i64,
        now: i64,
    ) -> Option<StateSince> {
        let since = self.since(cluster, self.replicas.get(&named(cluster, replica)), state)?;
        (age <= 0 || since.at + AGE_SLACK >= now - age).then_some(since)
    }

    /// The replicas of `cluster` the record holds, in any state.
    pub fn replicas_of<'a>(&'a self, cluster: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.replicas
            .keys()
            .filter(move |(c, _)| c == cluster)
            .map(|(_, id)| id.as_str())
    }

    /// What the record says `node` of `cluster` is in, if it says so since
    /// its last long gap.
    pub fn node_state(&self, cluster: &str, node: &str) -> Option<&str> {
        self.said(cluster, &self.nodes, node)
    }

    /// What the record says `model` of `cluster` has, likewise.
    pub fn model_status(&self, cluster: &str, model: &str) -> Option<&str> {
        self.said(cluster, &self.models, model)
    }

    /// What the record says `replica` of `cluster` is in, likewise.
    pub fn replica_state(&self, cluster: &str, replica: &str) -> Option<&str> {
        self.said(cluster, &self.replicas, replica)
    }

    fn said<'a>(
        &self,
        cluster: &str,
        marks: &'a HashMap<(String, String), Mark>,
        name: &str,
    ) -> Option<&'a str> {
        self.current(cluster, marks.get(&named(cluster, name)))
            .map(|m| m.state.as_str())
    }

    /// `mark`, unless a long gap in the record came after it: every state
    /// is found anew after one, and until its finding is taken in, an
    /// older mark says nothing of the present.
    fn current<'a>(&self, cluster: &str, mark: Option<&'a Mark>) -> Option<&'a Mark> {
        let started = self.started.get(cluster).copied();
        mark.filter(|m| started.is_none_or(|s| m.at >= s))
    }

    /// The mark's time when it says `state`: when the state was seen to
    /// begin, or, when it was only found so (as recording started), a
    /// lower bound. With no mark since the record's last long gap, a
    /// state that is the usual one held since the record last started or
    /// resumed (every other was found then, and every change since is
    /// marked; what appeared within a gap cannot be told from what was
    /// there before it, so not from further back); any other is not
    /// dated. Nor is one the mark disagrees with: the record has not taken
    /// the change in yet (it follows the journal a period behind the
    /// pages).
    fn since(&self, cluster: &str, mark: Option<&Mark>, state: &str) -> Option<StateSince> {
        let (at, at_least) = match self.current(cluster, mark) {
            Some(m) if m.state == state => (m.at, m.found),
            Some(_) => return None,
            None if state == USUAL => (*self.resumed.get(cluster)?, true),
            None => return None,
        };
        Some(StateSince {
            at,
            at_least,
            by: None,
            reason: None,
            checked: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The start of recording of cluster "eu" at `when`, the `id`th record.
    fn started(id: i64, when: i64) -> JournalEvent {
        at(
            id,
            JournalEvent::new(when, "eu", EventKind::RecordingStarted),
        )
    }

    fn at(id: i64, event: JournalEvent) -> JournalEvent {
        JournalEvent { id, ..event }
    }

    fn ix_attempt(when: i64) -> JournalEvent {
        node_change(when, "cordoned", "alice", "NVLink errors, RMA 4411")
    }

    /// `actor` set n1 of "eu" to `state` through a console at `when`.
    fn node_change(when: i64, state: &str, actor: &str, note: &str) -> JournalEvent {
        Event::Attempt(Attempt {
            action: "set_node_state",
            node: Some("n1"),
            model: None,
            state: Some(state),
            outcome: Outcome::Done,
            actor,
            note: Some(note.into()),
        })
        .record(when, "eu")
    }

    /// `node` of "eu" found in `state` at `when`, the `id`th record.
    fn found(id: i64, when: i64, node: &str, state: &str) -> JournalEvent {
        at(
            id,
            JournalEvent {
                after: Some(state.into()),
                ..JournalEvent::new(when, "eu", EventKind::NodeSeen).node(node)
            },
        )
    }

    fn cordoned(id: i64, when: i64, node: &str) -> JournalEvent {
        at(
            id,
            JournalEvent::new(when, "eu", EventKind::NodeState)
                .node(node)
                .change("ready", "cordoned"),
        )
    }

    #[test]
    fn a_state_seen_to_begin_is_dated_and_one_found_is_at_least() {
        let mut ix = SinceIndex::default();
        ix.apply(&[started(1, 100), found(2, 100, "n1", "ready")]);
        let since = ix.node("eu", "n1", "ready").expect("found at 100");
        assert_eq!(
            (since.at, since.at_least),
            (100, true),
            "never an invented start"
        );
        // One the record found nothing of was in the usual state at its
        // start; in another, the record has not taken it in yet (it
        // appeared, or changed, this period), and it is not dated.
        assert_eq!(
            ix.node("eu", "n9", "ready").map(|s| (s.at, s.at_least)),
            Some((100, true))
        );
        assert_eq!(ix.node("eu", "n9", "cordoned"), None);
        assert_eq!(ix.node("eu", "n1", "cordoned"), None);
        ix.apply(&[
            cordoned(3, 160, "n1"),
            JournalEvent {
                id: 4,
                ..ix_attempt(150)
            },
        ]);
        assert_eq!(ix.last_id, 4);
        // Before the record has the transition, the change made through
        // the console says who and why at once, dated from when it was made.
        let mut early = SinceIndex::default();
        early.apply(&[
            started(1, 100),
            found(2, 100, "n1", "ready"),
            ix_attempt(150),
        ]);
        let since = early.node("eu", "n1", "cordoned").expect("the change");
        assert_eq!((since.at, since.by.as_deref()), (150, Some("alice")));
        // Found cordoned as the record began: a cordon through the console
        // before it may be its cause, one after it is not.
        let mut again = SinceIndex::default();
        again.apply(&[
            started(1, 100),
            found(2, 100, "n1", "cordoned"),
            ix_attempt(150),
        ]);
        let since = again.node("eu", "n1", "cordoned").expect("found");
        assert_eq!((since.at, since.at_least, since.by), (100, true, None));
        let mut before = SinceIndex::default();
        before.apply(&[
            ix_attempt(90),
            started(1, 100),
            found(2, 100, "n1", "cordoned"),
        ]);
        let since = before.node("eu", "n1", "cordoned").expect("found");
        assert_eq!(since.by.as_deref(), Some("alice"));
        // A second cordon hours after the state began is not its cause.
        let mut late = SinceIndex::default();
        late.apply(&[
            started(1, 100),
            cordoned(2, 160, "n1"),
            JournalEvent {
                id: 3,
                ..ix_attempt(160 + 3 * 3600)
            },
        ]);
        let since = late.node("eu", "n1", "cordoned").expect("seen");
        assert_eq!((since.at, since.by), (160, None));
        let since = ix.node("eu", "n1", "cordoned").expect("seen");
        assert_eq!((since.at, since.at_least), (160, false));
        assert_eq!(since.by.as_deref(), Some("alice"));
        assert_eq!(since.reason.as_deref(), Some("NVLink errors, RMA 4411"));
        // Another cluster's node of the same name is another node.
        assert!(ix.node("us", "n1", "cordoned").is_none());
        // Uncordoned by llmgw ctl: the console's reason no longer applies.
        ix.apply(&[at(
            5,
            JournalEvent::new(300, "eu", EventKind::NodeState)
                .node("n1")
                .change("cordoned", "ready"),
        )]);
        let since = ix.node("eu", "n1", "ready").expect("seen");
        assert_eq!((since.at, since.by), (300, None));
        // A restart a minute after the record stopped is bridged: what is
        // the same on both sides keeps its start, what changed within the
        // gap is found as it resumed (the recorder writes only those).
        let restart = |id, when: i64, detail: &str| {
            at(
                id,
                JournalEvent::new(when, "eu", EventKind::RecordingStarted).detail(detail),
            )
        };
        ix.apply(&[
            found(6, 100, "n2", "ready"),
            restart(7, 400, RESUMED),
            found(8, 400, "n2", "cordoned"),
        ]);
        assert_eq!(
            ix.node("eu", "n1", "ready").map(|s| (s.at, s.at_least)),
            Some((300, false))
        );
        assert_eq!(
            ix.node("eu", "n2", "cordoned").map(|s| (s.at, s.at_least)),
            Some((400, true))
        );
        // One the record said nothing of may have appeared within the gap:
        // known since the record resumed, not from its start.
        assert_eq!(
            ix.node("eu", "n7", "ready").map(|s| (s.at, s.at_least)),
            Some((400, true))
        );
        // A long gap: every state is found anew as the record starts again,
        // and until its finding is taken in, nothing older is said.
        ix.apply(&[restart(9, 9_000, "")]);
        assert_eq!(
            ix.node("eu", "n1", "ready").map(|s| (s.at, s.at_least)),
            Some((9_000, true)),
            "the usual state, not found otherwise"
        );
        assert_eq!(ix.node_state("eu", "n2"), None, "to be found again");
        assert_eq!(ix.node("eu", "n2", "cordoned"), None);
        ix.apply(&[found(10, 9_000, "n2", "cordoned")]);
        let since = ix.node("eu", "n2", "cordoned").expect("found");
        assert_eq!((since.at, since.at_least), (9_000, true));
    }

    #[test]
    fn a_record_from_before_states_were_found_dates_nothing_it_did_not_see() {
        let mut ix = SinceIndex::default();
        ix.apply(&[started(1, 100), cordoned(2, 160, "n1")]);
        assert_eq!(ix.node("eu", "n2", "draining"), None);
        // Seen to begin before a long gap, and not found since.
        ix.apply(&[at(
            3,
            JournalEvent::new(9_000, "eu", EventKind::RecordingStarted),
        )]);
        assert_eq!(ix.node("eu", "n1", "cordoned"), None);
    }

    #[test]
    fn a_model_not_placed_is_dated_from_its_change_of_status() {
        let mut ix = SinceIndex::default();
        ix.apply(&[
            started(1, 10),
            at(
                2,
                JournalEvent::new(20, "eu", EventKind::ModelAppeared)
                    .model("big")
                    .detail("starting"),
            ),
            at(
                3,
                JournalEvent::new(50, "eu", EventKind::ModelStatus)
                    .model("big")
                    .change("starting", "not placed"),
            ),
        ]);
        assert_eq!(
            ix.model("eu", "big", "not placed")
                .map(|s| (s.at, s.at_least)),
            Some((50, false))
        );
        // What the lists say now and the record disagree, with no gap in
        // the record since: the change is yet to be recorded, and nothing
        // is said of it until it is.
        assert_eq!(ix.model("eu", "big", "ready"), None);
        ix.apply(&[at(
            4,
            JournalEvent::new(60, "eu", EventKind::ModelGone).model("big"),
        )]);
        // Gone: back in the lists, it is dated once the record has seen
        // it appear.
        assert_eq!(ix.model("eu", "big", "not placed"), None);
    }

    #[test]
    fn a_replica_is_dated_from_its_appearance_its_change_or_its_finding() {
        let mut ix = SinceIndex::default();
        let replica = |id: i64, when: i64, kind: EventKind, r: &str| {
            at(
                id,
                JournalEvent::new(when, "eu", kind).replica(r).model("big"),
            )
        };
        ix.apply(&[
            started(1, 10),
            JournalEvent {
                after: Some("failed".into()),
                ..replica(2, 10, EventKind::ReplicaSeen, "r-old")
            },
            replica(3, 20, EventKind::ReplicaAppeared, "r1").detail("starting"),
            JournalEvent {
                before: Some("starting".into()),
                after: Some("ready".into()),
                ..replica(4, 50, EventKind::ReplicaState, "r1")
            },
            replica(5, 30, EventKind::ReplicaAppeared, "r2").detail("starting"),
        ]);
        let dated = |ix: &SinceIndex, r: &str, state: &str| {
            ix.replica("eu", r, state, 0, 60)
                .map(|s| (s.at, s.at_least))
        };
        assert_eq!(
            dated(&ix, "r1", "ready"),
            Some((50, false)),
            "seen to change"
        );
        assert_eq!(
            dated(&ix, "r2", "starting"),
            Some((30, false)),
            "seen to appear"
        );
        assert_eq!(dated(&ix, "r-old", "failed"), Some((10, true)), "found so");
        assert_eq!(
            dated(&ix, "r-there", "ready"),
            Some((10, true)),
            "usual, with no record since the start"
        );
        assert_eq!(
            dated(&ix, "r-there", "starting"),
            None,
            "not found so: not dated"
        );
        assert_eq!(
            dated(&ix, "r2", "ready"),
            None,
            "the record has not seen it yet"
        );
        assert_eq!(ix.replica_state("eu", "r1"), Some("ready"));
        // llmgw gave r1's id to a replica begun after the record's date: not
        // r1's date, not said. One as old as the date, or a little younger
        // (its age is a read's, maybe a period old), keeps it.
        let aged = |age: i64| ix.replica("eu", "r1", "ready", age, 2_000).map(|s| s.at);
        assert_eq!(aged(2_000 - 50), Some(50));
        assert_eq!(aged(2_000 - 50 - AGE_SLACK), Some(50));
        assert_eq!(aged(2_000 - 50 - AGE_SLACK - 1), None);
        let mut held: Vec<&str> = ix.replicas_of("eu").collect();
        held.sort();
        assert_eq!(held, ["r-old", "r1", "r2"]);
        assert_eq!(ix.replicas_of("us").count(), 0);
        ix.apply(&[replica(6, 60, EventKind::ReplicaGone, "r1")]);
        assert_eq!(ix.replica_state("eu", "r1"), None, "gone, not followed");
        assert_eq!(dated(&ix, "r1", "ready"), Some((10, true)));
    }

    #[test]
    fn an_unhealthy_gpu_is_dated_from_when_it_turned_or_was_found() {
        let mut ix = SinceIndex::default();
        let on = |id, when, kind, line: &str| {
            at(
                id,
                JournalEvent::new(when, "eu", kind).node("n1").detail(line),
            )
        };
        let gpu = |id, when, kind| on(id, when, kind, "gpu 3: XID 79");
        let dated = |ix: &SinceIndex, line: &str| match ix.gpu("eu", "n1", line) {
            FaultDate::Since(s) => Some((s.at, s.at_least)),
            FaultDate::New => Some((-1, false)),
            FaultDate::Unknown => None,
        };
        assert_eq!(dated(&ix, "gpu 3: XID 79"), None, "nothing recorded yet");
        ix.apply(&[started(1, 100), gpu(2, 100, EventKind::GpuSeen)]);
        assert_eq!(dated(&ix, "gpu 3: XID 79"), Some((100, true)), "found");
        // Not found as the record began, and not yet taken in: new, never
        // "since at least" the start.
        assert_eq!(ix.gpu("eu", "n1", "gpu 4: XID 48"), FaultDate::New);
        ix.apply(&[
            gpu(3, 200, EventKind::GpuHealthy),
            gpu(4, 300, EventKind::GpuUnhealthy),
        ]);
        assert_eq!(dated(&ix, "gpu 3: XID 79"), Some((300, false)), "seen");
        // A restart within the bridged gap finds what turned within it; one
        // seen keeps its start.
        ix.apply(&[
            at(
                5,
                JournalEvent::new(350, "eu", EventKind::RecordingStarted).detail(RESUMED),
            ),
            on(6, 350, EventKind::GpuSeen, "gpu 4: XID 48"),
        ]);
        assert_eq!(dated(&ix, "gpu 4: XID 48"), Some((350, true)));
        assert_eq!(dated(&ix, "gpu 3: XID 79"), Some((300, false)));
        let mut held = ix.unhealthy_gpus("eu", "n1");
        held.sort();
        assert_eq!(held, ["gpu 3: XID 79", "gpu 4: XID 48"]);
        // Gone and back: dated from its appearance, never from its past.
        ix.apply(&[
            at(
                7,
                JournalEvent::new(400, "eu", EventKind::NodeGone).node("n1"),
            ),
            at(
                8,
                JournalEvent::new(500, "eu", EventKind::NodeAppeared)
                    .node("n1")
                    .detail("ready"),
            ),
            gpu(9, 500, EventKind::GpuUnhealthy),
        ]);
        assert_eq!(dated(&ix, "gpu 3: XID 79"), Some((500, false)));
        assert_eq!(ix.gpu("eu", "n1", "gpu 4: XID 48"), FaultDate::New);
        // A long gap: it may have recovered and failed again within it, so
        // it is dated from its finding after the gap.
        let mut gap = SinceIndex::default();
        gap.apply(&[
            started(1, 100),
            gpu(2, 300, EventKind::GpuUnhealthy),
            started(3, 9_000),
        ]);
        assert_eq!(gap.gpu("eu", "n1", "gpu 3: XID 79"), FaultDate::New);
        assert!(gap.unhealthy_gpus("eu", "n1").is_empty());
        gap.apply(&[gpu(4, 9_000, EventKind::GpuSeen)]);
        assert_eq!(dated(&gap, "gpu 3: XID 79"), Some((9_000, true)));
        // Healthy again: no longer followed.
        ix.apply(&[gpu(10, 600, EventKind::GpuHealthy)]);
        assert!(ix.gpus.is_empty());
    }

    #[test]
    fn a_change_through_a_console_says_who_and_why_before_the_record_has_the_state() {
        let mut ix = SinceIndex::default();
        let change = |id, when, state: &str| at(id, node_change(when, state, "jane", "RMA 5120"));
        ix.apply(&[started(1, 100), cordoned(2, 200, "n1")]);
        // The record says cordoned since 200; jane's uncordon at 300 is
        // not in it yet.
        ix.apply(&[change(3, 300, "ready")]);
        let since = ix.node("eu", "n1", "ready").expect("the console's change");
        assert_eq!(
            (
                since.at,
                since.at_least,
                since.by.as_deref(),
                since.reason.as_deref()
            ),
            (300, false, Some("jane"), Some("RMA 5120"))
        );
        // A change older than what the record says is not the cause of a
        // state it has not seen.
        let mut old = SinceIndex::default();
        old.apply(&[
            started(1, 100),
            change(2, 150, "ready"),
            cordoned(3, 200, "n1"),
        ]);
        assert_eq!(old.node("eu", "n1", "ready"), None);
        // Nor is a change to another state.
        assert_eq!(ix.node("eu", "n1", "draining"), None);
    }

    #[test]
    fn a_change_not_yet_in_the_index_is_not_dated_from_the_past() {
        let mut ix = SinceIndex::default();
        ix.apply(&[started(1, 100), cordoned(2, 200, "n1")]);
        // The page's read already says ready again; the journal will say
        // so a period later.
        assert_eq!(ix.node("eu", "n1", "ready"), None);
        assert_eq!(ix.node("eu", "n1", "cordoned").map(|s| s.at), Some(200));
    }

    #[test]
    fn a_name_with_a_nul_is_dated_as_the_journal_keeps_it() {
        // What the index takes in comes from the database, where a NUL
        // is kept as U+FFFD (`storable`); pages ask with llmgw's name.
        let mut ix = SinceIndex::default();
        ix.apply(&[
            started(1, 100),
            cordoned(2, 200, "n\u{FFFD}1"),
            at(
                3,
                JournalEvent::new(300, "eu", EventKind::ReplicaAppeared)
                    .replica("r\u{FFFD}1")
                    .detail("starting"),
            ),
        ]);
        assert_eq!(
            ix.node("eu", "n\u{0}1", "cordoned").map(|s| s.at),
            Some(200)
        );
        assert_eq!(ix.node_state("eu", "n\u{0}1"), Some("cordoned"));
        assert_eq!(
            ix.replica("eu", "r\u{0}1", "starting", 0, 400)
                .map(|s| s.at),
            Some(300)
        );
        assert_eq!(ix.replica_state("eu", "r\u{0}1"), Some("starting"));
    }
}
