//! What a journal record says, typed: one variant per kind, each with the
//! fields that kind has. The journal's logic (what changed, since when,
//! who asked) reads records through [`Event`]; the row
//! ([`JournalEvent`]) is only how one is stored and listed, and the two
//! functions here are the one mapping between them.

use std::borrow::Cow;

use crate::Outcome;
use crate::record::{EventKind, JournalEvent};

/// The server function that changes a node's state: its attempts name
/// the state asked for.
pub const NODE_STATE_ACTION: &str = "set_node_state";

/// The detail of a start of recording after a gap short enough to bridge.
pub const RESUMED: &str = "resumed";

/// What a replica that went while nothing was recorded says in its
/// `ReplicaGone` record.
pub const GONE_UNSEEN: &str = "went while the record had a gap";

/// One record's content. Borrowed from the row (or from the lists it was
/// seen in), so reading a million records copies no text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event<'a> {
    /// Recording began; `gap_from` is when the record last said anything
    /// of the cluster, and `resumed` says the gap was short enough that
    /// what held on both sides of it kept its start.
    RecordingStarted {
        gap_from: Option<i64>,
        resumed: bool,
    },
    NodeAppeared {
        node: &'a str,
        state: &'a str,
    },
    NodeGone {
        node: &'a str,
    },
    /// States in llmgw's words; a dash for one not reported.
    NodeState {
        node: &'a str,
        was: &'a str,
        now: &'a str,
    },
    /// `last_seen` is llmgw's age of the node's last report.
    NodeSilent {
        node: &'a str,
        last_seen: &'a str,
    },
    NodeReporting {
        node: &'a str,
    },
    /// `gpu` is llmgw's line for it, verbatim.
    GpuUnhealthy {
        node: &'a str,
        gpu: &'a str,
    },
    GpuHealthy {
        node: &'a str,
        gpu: &'a str,
    },
    DiskNearlyFull {
        node: &'a str,
        free: Cow<'a, str>,
    },
    DiskRelieved {
        node: &'a str,
    },
    ModelAppeared {
        model: &'a str,
        status: &'a str,
    },
    ModelGone {
        model: &'a str,
    },
    ModelStatus {
        model: &'a str,
        was: &'a str,
        now: &'a str,
    },
    /// Ready replicas over the minimum, before and after ("2/2" → "1/2").
    BelowMinimum {
        model: &'a str,
        was: Cow<'a, str>,
        now: Cow<'a, str>,
    },
    BackToMinimum {
        model: &'a str,
        was: Cow<'a, str>,
        now: Cow<'a, str>,
    },
    /// The headline of its explanation.
    PlacementReason {
        model: &'a str,
        was: &'a str,
        now: &'a str,
    },
    ReplicaAppeared {
        replica: &'a str,
        model: &'a str,
        state: &'a str,
    },
    ReplicaFailed {
        replica: &'a str,
        model: &'a str,
        error: Cow<'a, str>,
    },
    ReplicaState {
        replica: &'a str,
        model: &'a str,
        was: &'a str,
        now: &'a str,
    },
    /// `unseen`: it went within a gap of the record, and which model it
    /// served is no longer known.
    ReplicaGone {
        replica: &'a str,
        model: Option<&'a str>,
        unseen: bool,
    },
    Attempt(Attempt<'a>),
    /// The state a node was found in as recording started (or after a
    /// short gap, one it changed to within it).
    NodeSeen {
        node: &'a str,
        found: Found<'a>,
    },
    ModelSeen {
        model: &'a str,
        found: Found<'a>,
    },
    ReplicaSeen {
        replica: &'a str,
        model: &'a str,
        found: Found<'a>,
    },
    GpuSeen {
        node: &'a str,
        gpu: &'a str,
    },
}

/// A state found as recording started, and the one the record last had,
/// if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Found<'a> {
    pub was: Option<&'a str>,
    pub now: &'a str,
}

/// An attempt through a console.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attempt<'a> {
    /// The server function ("set_node_state").
    pub action: &'a str,
    pub node: Option<&'a str>,
    pub model: Option<&'a str>,
    /// The state it asked a node to take, in llmgw's words.
    pub state: Option<&'a str>,
    pub outcome: Outcome,
    /// The user, or the name llmgw was given.
    pub actor: &'a str,
    /// The operator's reason for a change that went through; why one did
    /// not.
    pub note: Option<Cow<'a, str>>,
}

impl Event<'_> {
    pub fn kind(&self) -> EventKind {
        match self {
            Self::RecordingStarted { .. } => EventKind::RecordingStarted,
            Self::NodeAppeared { .. } => EventKind::NodeAppeared,
            Self::NodeGone { .. } => EventKind::NodeGone,
            Self::NodeState { .. } => EventKind::NodeState,
            Self::NodeSilent { .. } => EventKind::NodeSilent,
            Self::NodeReporting { .. } => EventKind::NodeReporting,
            Self::GpuUnhealthy { .. } => EventKind::GpuUnhealthy,
            Self::GpuHealthy { .. } => EventKind::GpuHealthy,
            Self::DiskNearlyFull { .. } => EventKind::DiskNearlyFull,
            Self::DiskRelieved { .. } => EventKind::DiskRelieved,
            Self::ModelAppeared { .. } => EventKind::ModelAppeared,
            Self::ModelGone { .. } => EventKind::ModelGone,
            Self::ModelStatus { .. } => EventKind::ModelStatus,
            Self::BelowMinimum { .. } => EventKind::BelowMinimum,
            Self::BackToMinimum { .. } => EventKind::BackToMinimum,
            Self::PlacementReason { .. } => EventKind::PlacementReason,
            Self::ReplicaAppeared { .. } => EventKind::ReplicaAppeared,
            Self::ReplicaFailed { .. } => EventKind::ReplicaFailed,
            Self::ReplicaState { .. } => EventKind::ReplicaState,
            Self::ReplicaGone { .. } => EventKind::ReplicaGone,
            Self::Attempt(_) => EventKind::Attempt,
            Self::NodeSeen { .. } => EventKind::NodeSeen,
            Self::ModelSeen { .. } => EventKind::ModelSeen,
            Self::ReplicaSeen { .. } => EventKind::ReplicaSeen,
            Self::GpuSeen { .. } => EventKind::GpuSeen,
        }
    }

    /// The row that stores it: the words of every column are the
    /// database's, so they never change once shipped.
    pub fn record(&self, at: i64, cluster: &str) -> JournalEvent {
        let row = JournalEvent::new(at, cluster, self.kind());
        match self {
            Self::RecordingStarted { gap_from, resumed } => JournalEvent {
                before: gap_from.map(|t| t.to_string()),
                ..row
            }
            .detail(if *resumed { RESUMED } else { "" }),
            Self::NodeAppeared { node, state } => row.node(node).detail(*state),
            Self::NodeGone { node }
            | Self::NodeReporting { node }
            | Self::DiskRelieved { node } => row.node(node),
            Self::NodeState { node, was, now } => row.node(node).change(*was, *now),
            Self::NodeSilent { node, last_seen } => row.node(node).detail(*last_seen),
            Self::GpuUnhealthy { node, gpu }
            | Self::GpuHealthy { node, gpu }
            | Self::GpuSeen { node, gpu } => row.node(node).detail(*gpu),
            Self::DiskNearlyFull { node, free } => row.node(node).detail(free.as_ref()),
            Self::ModelAppeared { model, status } => row.model(model).detail(*status),
            Self::ModelGone { model } => row.model(model),
            Self::ModelStatus { model, was, now } | Self::PlacementReason { model, was, now } => {
                row.model(model).change(*was, *now)
            }
            Self::BelowMinimum { model, was, now } | Self::BackToMinimum { model, was, now } => {
                row.model(model).change(was.as_ref(), now.as_ref())
            }
            Self::ReplicaAppeared {
                replica,
                model,
                state,
            } => row.replica(replica).model(model).detail(*state),
            Self::ReplicaFailed {
                replica,
                model,
                error,
            } => row.replica(replica).model(model).detail(error.as_ref()),
            Self::ReplicaState {
                replica,
                model,
                was,
                now,
            } => row.replica(replica).model(model).change(*was, *now),
            Self::ReplicaGone {
                replica,
                model,
                unseen,
            } => {
                let row = row.replica(replica);
                let row = match model {
                    Some(m) => row.model(m),
                    None => row,
                };
                row.detail(if *unseen { GONE_UNSEEN } else { "" })
            }
            Self::Attempt(a) => {
                let action = match a.state {
                    Some(state) => format!("{} {state}", a.action),
                    None => a.action.to_string(),
                };
                JournalEvent {
                    node: a.node.map(str::to_string),
                    model: a.model.map(str::to_string),
                    actor: Some(a.actor.to_string()),
                    ..row
                }
                .change(action, a.outcome.as_str())
                .detail(a.note.as_deref().unwrap_or_default())
            }
            Self::NodeSeen { node, found } => found.onto(row.node(node)),
            Self::ModelSeen { model, found } => found.onto(row.model(model)),
            Self::ReplicaSeen {
                replica,
                model,
                found,
            } => found.onto(row.replica(replica).model(model)),
        }
    }
}

impl Found<'_> {
    fn onto(&self, row: JournalEvent) -> JournalEvent {
        JournalEvent {
            before: self.was.map(str::to_string),
            after: Some(self.now.to_string()),
            ..row
        }
    }
}

impl JournalEvent {
    /// What this row says; none for a row that lacks what its kind needs
    /// (written by hand, or damaged), which the journal's logic skips and
    /// a list shows as it is.
    pub fn event(&self) -> Option<Event<'_>> {
        let node = self.node.as_deref();
        let model = self.model.as_deref();
        let replica = self.replica.as_deref();
        let before = self.before.as_deref();
        let after = self.after.as_deref();
        let detail = self.detail.as_deref().unwrap_or_default();
        let borrowed = Cow::Borrowed;
        Some(match self.kind {
            EventKind::RecordingStarted => Event::RecordingStarted {
                gap_from: before.and_then(|t| t.parse().ok()),
                resumed: detail == RESUMED,
            },
            EventKind::NodeAppeared => Event::NodeAppeared {
                node: node?,
                state: detail,
            },
            EventKind::NodeGone => Event::NodeGone { node: node? },
            EventKind::NodeState => Event::NodeState {
                node: node?,
                was: before?,
                now: after?,
            },
            EventKind::NodeSilent => Event::NodeSilent {
                node: node?,
                last_seen: detail,
            },
            EventKind::NodeReporting => Event::NodeReporting { node: node? },
            EventKind::GpuUnhealthy => Event::GpuUnhealthy {
                node: node?,
                gpu: self.detail.as_deref()?,
            },
            EventKind::GpuHealthy => Event::GpuHealthy {
                node: node?,
                gpu: self.detail.as_deref()?,
            },
            EventKind::DiskNearlyFull => Event::DiskNearlyFull {
                node: node?,
                free: borrowed(detail),
            },
            EventKind::DiskRelieved => Event::DiskRelieved { node: node? },
            EventKind::ModelAppeared => Event::ModelAppeared {
                model: model?,
                status: detail,
            },
            EventKind::ModelGone => Event::ModelGone { model: model? },
            EventKind::ModelStatus => Event::ModelStatus {
                model: model?,
                was: before?,
                now: after?,
            },
            EventKind::BelowMinimum => Event::BelowMinimum {
                model: model?,
                was: borrowed(before?),
                now: borrowed(after?),
            },
            EventKind::BackToMinimum => Event::BackToMinimum {
                model: model?,
                was: borrowed(before?),
                now: borrowed(after?),
            },
            EventKind::PlacementReason => Event::PlacementReason {
                model: model?,
                was: before?,
                now: after?,
            },
            // A replica's model is always written; one read without it (a
            // hand-written row) still says where the replica stands.
            EventKind::ReplicaAppeared => Event::ReplicaAppeared {
                replica: replica?,
                model: model.unwrap_or_default(),
                state: detail,
            },
            EventKind::ReplicaFailed => Event::ReplicaFailed {
                replica: replica?,
                model: model.unwrap_or_default(),
                error: borrowed(detail),
            },
            EventKind::ReplicaState => Event::ReplicaState {
                replica: replica?,
                model: model.unwrap_or_default(),
                was: before?,
                now: after?,
            },
            EventKind::ReplicaGone => Event::ReplicaGone {
                replica: replica?,
                model,
                unseen: detail == GONE_UNSEEN,
            },
            EventKind::Attempt => {
                let asked = before?;
                let (action, state) = match asked.split_once(' ') {
                    Some((action, state)) => (action, Some(state)),
                    None => (asked, None),
                };
                Event::Attempt(Attempt {
                    action,
                    node,
                    model,
                    state,
                    outcome: Outcome::ALL
                        .into_iter()
                        .find(|o| Some(o.as_str()) == after)?,
                    actor: self.actor.as_deref().unwrap_or_default(),
                    note: self.detail.as_deref().map(borrowed),
                })
            }
            EventKind::NodeSeen => Event::NodeSeen {
                node: node?,
                found: Found::of(before, after?),
            },
            EventKind::ModelSeen => Event::ModelSeen {
                model: model?,
                found: Found::of(before, after?),
            },
            EventKind::ReplicaSeen => Event::ReplicaSeen {
                replica: replica?,
                model: model.unwrap_or_default(),
                found: Found::of(before, after?),
            },
            EventKind::GpuSeen => Event::GpuSeen {
                node: node?,
                gpu: self.detail.as_deref()?,
            },
        })
    }
}

impl<'a> Found<'a> {
    fn of(was: Option<&'a str>, now: &'a str) -> Self {
        Self { was, now }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One of every kind, with every field it has set.
    fn every_kind() -> Vec<Event<'static>> {
        let found = Found {
            was: Some("cordoned"),
            now: "ready",
        };
        vec![
            Event::RecordingStarted {
                gap_from: Some(1_700),
                resumed: true,
            },
            Event::NodeAppeared {
                node: "n1",
                state: "ready",
            },
            Event::NodeGone { node: "n1" },
            Event::NodeState {
                node: "n1",
                was: "ready",
                now: "cordoned",
            },
            Event::NodeSilent {
                node: "n1",
                last_seen: "5m",
            },
            Event::NodeReporting { node: "n1" },
            Event::GpuUnhealthy {
                node: "n1",
                gpu: "GPU 3: XID 79",
            },
            Event::GpuHealthy {
                node: "n1",
                gpu: "GPU 3: XID 79",
            },
            Event::DiskNearlyFull {
                node: "n1",
                free: "3 of 900 GB free".into(),
            },
            Event::DiskRelieved { node: "n1" },
            Event::ModelAppeared {
                model: "llama",
                status: "starting",
            },
            Event::ModelGone { model: "llama" },
            Event::ModelStatus {
                model: "llama",
                was: "ready",
                now: "not placed",
            },
            Event::BelowMinimum {
                model: "llama",
                was: "2/2".into(),
                now: "1/2".into(),
            },
            Event::BackToMinimum {
                model: "llama",
                was: "1/2".into(),
                now: "2/2".into(),
            },
            Event::PlacementReason {
                model: "llama",
                was: "no node has 8 GPUs free",
                now: "placed",
            },
            Event::ReplicaAppeared {
                replica: "r1",
                model: "llama",
                state: "starting",
            },
            Event::ReplicaFailed {
                replica: "r1",
                model: "llama",
                error: "out of memory".into(),
            },
            Event::ReplicaState {
                replica: "r1",
                model: "llama",
                was: "starting",
                now: "ready",
            },
            Event::ReplicaGone {
                replica: "r1",
                model: Some("llama"),
                unseen: false,
            },
            Event::ReplicaGone {
                replica: "r2",
                model: None,
                unseen: true,
            },
            Event::Attempt(Attempt {
                action: NODE_STATE_ACTION,
                node: Some("n1"),
                model: None,
                state: Some("cordoned"),
                outcome: Outcome::Done,
                actor: "alice",
                note: Some("NVLink errors, RMA 4411".into()),
            }),
            Event::Attempt(Attempt {
                action: "collect_weights",
                node: None,
                model: None,
                state: None,
                outcome: Outcome::Refused,
                actor: "console",
                note: None,
            }),
            Event::NodeSeen { node: "n1", found },
            Event::ModelSeen {
                model: "llama",
                found: Found {
                    was: None,
                    now: "starting",
                },
            },
            Event::ReplicaSeen {
                replica: "r1",
                model: "llama",
                found,
            },
            Event::GpuSeen {
                node: "n1",
                gpu: "GPU 0: fallen off the bus",
            },
        ]
    }

    #[test]
    fn every_kind_is_stored_and_read_back_as_it_was() {
        let events = every_kind();
        let kinds: std::collections::HashSet<EventKind> = events.iter().map(Event::kind).collect();
        assert_eq!(kinds.len(), EventKind::ALL.len(), "a kind has no case here");
        for event in events {
            let row = event.record(10, "eu");
            assert_eq!(row.kind, event.kind());
            assert_eq!(row.event().as_ref(), Some(&event), "{row:?}");
        }
    }

    #[test]
    fn rows_written_before_the_typed_records_read_as_they_meant() {
        // Rows as the journal wrote them before records were typed.
        let mut cordon = JournalEvent::new(5, "eu", EventKind::Attempt)
            .node("gpu-07")
            .change(format!("{NODE_STATE_ACTION} cordoned"), "done")
            .detail("NVLink errors, RMA 4411");
        cordon.actor = Some("alice".into());
        let Some(Event::Attempt(a)) = cordon.event() else {
            panic!("an attempt: {cordon:?}")
        };
        assert_eq!(
            (a.action, a.node, a.state, a.outcome, a.actor),
            (
                NODE_STATE_ACTION,
                Some("gpu-07"),
                Some("cordoned"),
                Outcome::Done,
                "alice"
            )
        );
        assert_eq!(a.note.as_deref(), Some("NVLink errors, RMA 4411"));
        let start = JournalEvent::new(5, "eu", EventKind::RecordingStarted);
        assert_eq!(
            start.event(),
            Some(Event::RecordingStarted {
                gap_from: None,
                resumed: false
            })
        );
    }

    #[test]
    fn a_row_without_what_its_kind_needs_is_no_event() {
        assert_eq!(
            JournalEvent::new(5, "eu", EventKind::NodeState).event(),
            None
        );
        let unknown_outcome = JournalEvent::new(5, "eu", EventKind::Attempt).change("x", "maybe");
        assert_eq!(unknown_outcome.event(), None);
    }
}
