//! One thing that changed in a cluster, as the journal keeps it and the
//! events page shows it: a transition the console saw between two reads,
//! or an attempt made through it.

use serde::{Deserialize, Serialize};

/// An operator's reason for a cordon or drain is a line ("NVLink errors,
/// RMA 4411"): the dialog's field takes this many characters, and the
/// server refuses more.
pub const NOTE_LIMIT: usize = 200;

/// `text` as the journal keeps it: PostgreSQL's text cannot hold a NUL,
/// which a hostile request or a lying admin API may carry, and one such
/// record would fail its whole batch again and again. Whatever looks a
/// name up in the journal (a filter, the since index) asks with this
/// form, or the record it wrote is never found.
pub fn storable(text: &str) -> String {
    text.replace('\0', "\u{FFFD}")
}

/// The usual state of a node, status of a model and state of a replica,
/// in the console's words: what a start of recording takes everything it
/// does not find otherwise to be in, so that it writes (and the console
/// holds) only the few that are not.
pub const USUAL: &str = "ready";

/// A change made through a console is seen in llmgw's lists a poll or so
/// later: an attempt this much older than a transition is still its cause.
pub const ATTEMPT_LEAD: i64 = 120;

/// What kind of change a record is. Stored as [`EventKind::as_str`]: the
/// words are the database's too, so they never change once shipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// The console began recording the cluster (first start, or after a
    /// time nobody recorded): what came before is not known.
    RecordingStarted,
    NodeAppeared,
    NodeGone,
    /// `before` → `after`, in llmgw's words ("ready", "cordoned"; a dash
    /// for a state not reported).
    NodeState,
    /// The node's agent stopped reporting (see `fixes::is_silent`).
    NodeSilent,
    NodeReporting,
    /// `detail` names the GPU.
    GpuUnhealthy,
    GpuHealthy,
    DiskNearlyFull,
    DiskRelieved,
    ModelAppeared,
    ModelGone,
    /// `before` → `after`: "ready", "starting", "not placed", "stopped".
    ModelStatus,
    /// Its wanted replicas no longer all ready (`after` says how many), or
    /// all ready again.
    BelowMinimum,
    BackToMinimum,
    /// The headline of its explanation changed to `after`.
    PlacementReason,
    ReplicaAppeared,
    /// `detail` is the error it reported.
    ReplicaFailed,
    ReplicaState,
    ReplicaGone,
    /// An attempt through the console: `actor`, `after` is its outcome,
    /// `detail` its reason or the operator's note.
    Attempt,
    /// The state a node was found in (`detail`) as recording started, or,
    /// after a short gap, one it changed to within the gap: held since
    /// then at least, not begun then. What "since when" is bounded by.
    NodeSeen,
    /// The same for a model's status.
    ModelSeen,
    /// The same for a replica's state.
    ReplicaSeen,
    /// A GPU (`detail`) found unhealthy as recording started, or, after a
    /// short gap, one that turned within it: unhealthy since then at
    /// least. With it, a GPU the record has no date for turned after the
    /// record began, and is new.
    GpuSeen,
}

impl EventKind {
    pub const ALL: [Self; 25] = [
        Self::RecordingStarted,
        Self::NodeAppeared,
        Self::NodeGone,
        Self::NodeState,
        Self::NodeSilent,
        Self::NodeReporting,
        Self::GpuUnhealthy,
        Self::GpuHealthy,
        Self::DiskNearlyFull,
        Self::DiskRelieved,
        Self::ModelAppeared,
        Self::ModelGone,
        Self::ModelStatus,
        Self::BelowMinimum,
        Self::BackToMinimum,
        Self::PlacementReason,
        Self::ReplicaAppeared,
        Self::ReplicaFailed,
        Self::ReplicaState,
        Self::ReplicaGone,
        Self::Attempt,
        Self::NodeSeen,
        Self::ModelSeen,
        Self::ReplicaSeen,
        Self::GpuSeen,
    ];

    /// What a list of changes leaves out unless asked: a start of
    /// recording writes one of these for each node, model and replica not
    /// in the usual state.
    pub const SEEN: [Self; 4] = [
        Self::NodeSeen,
        Self::ModelSeen,
        Self::ReplicaSeen,
        Self::GpuSeen,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::RecordingStarted => "recording_started",
            Self::NodeAppeared => "node_appeared",
            Self::NodeGone => "node_gone",
            Self::NodeState => "node_state",
            Self::NodeSilent => "node_silent",
            Self::NodeReporting => "node_reporting",
            Self::GpuUnhealthy => "gpu_unhealthy",
            Self::GpuHealthy => "gpu_healthy",
            Self::DiskNearlyFull => "disk_nearly_full",
            Self::DiskRelieved => "disk_relieved",
            Self::ModelAppeared => "model_appeared",
            Self::ModelGone => "model_gone",
            Self::ModelStatus => "model_status",
            Self::BelowMinimum => "below_minimum",
            Self::BackToMinimum => "back_to_minimum",
            Self::PlacementReason => "placement_reason",
            Self::ReplicaAppeared => "replica_appeared",
            Self::ReplicaFailed => "replica_failed",
            Self::ReplicaState => "replica_state",
            Self::ReplicaGone => "replica_gone",
            Self::Attempt => "attempt",
            Self::NodeSeen => "node_seen",
            Self::ModelSeen => "model_seen",
            Self::ReplicaSeen => "replica_seen",
            Self::GpuSeen => "gpu_seen",
        }
    }

    /// The events page's words for it.
    pub fn label(self) -> &'static str {
        match self {
            Self::RecordingStarted => "recording started",
            Self::NodeAppeared => "node appeared",
            Self::NodeGone => "node gone",
            Self::NodeState => "node state",
            Self::NodeSilent => "node stopped reporting",
            Self::NodeReporting => "node reporting again",
            Self::GpuUnhealthy => "GPU unhealthy",
            Self::GpuHealthy => "GPU healthy again",
            Self::DiskNearlyFull => "disk nearly full",
            Self::DiskRelieved => "disk relieved",
            Self::ModelAppeared => "model appeared",
            Self::ModelGone => "model gone",
            Self::ModelStatus => "model status",
            Self::BelowMinimum => "below its minimum",
            Self::BackToMinimum => "back to its minimum",
            Self::PlacementReason => "placement reason",
            Self::ReplicaAppeared => "replica appeared",
            Self::ReplicaFailed => "replica failed",
            Self::ReplicaState => "replica state",
            Self::ReplicaGone => "replica gone",
            Self::Attempt => "change through the console",
            Self::NodeSeen => "node's state found",
            Self::ModelSeen => "model's status found",
            Self::ReplicaSeen => "replica's state found",
            Self::GpuSeen => "GPU found unhealthy",
        }
    }

    pub fn parse(word: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == word)
    }

    /// What it is about, for the events page's filter.
    pub fn subject(self) -> Subject {
        match self {
            Self::RecordingStarted | Self::Attempt => Subject::Console,
            Self::NodeAppeared
            | Self::NodeGone
            | Self::NodeState
            | Self::NodeSilent
            | Self::NodeReporting
            | Self::GpuUnhealthy
            | Self::GpuHealthy
            | Self::DiskNearlyFull
            | Self::DiskRelieved
            | Self::NodeSeen
            | Self::GpuSeen => Subject::Node,
            Self::ModelAppeared
            | Self::ModelGone
            | Self::ModelStatus
            | Self::BelowMinimum
            | Self::BackToMinimum
            | Self::PlacementReason
            | Self::ModelSeen => Subject::Model,
            Self::ReplicaAppeared
            | Self::ReplicaFailed
            | Self::ReplicaState
            | Self::ReplicaGone
            | Self::ReplicaSeen => Subject::Replica,
        }
    }
}

/// What a record is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject {
    Console,
    Node,
    Model,
    Replica,
}

/// One record of the journal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalEvent {
    /// Its place in the journal; 0 until it is written.
    pub id: i64,
    /// Seconds since the Unix epoch: the read that saw it, or the attempt.
    pub at: i64,
    /// The cluster's id.
    pub cluster: String,
    pub kind: EventKind,
    pub node: Option<String>,
    pub model: Option<String>,
    pub replica: Option<String>,
    pub before: Option<String>,
    pub after: Option<String>,
    /// Who, for an attempt through the console.
    pub actor: Option<String>,
    /// A GPU, an error, the operator's reason.
    pub detail: Option<String>,
}

impl JournalEvent {
    pub fn new(at: i64, cluster: &str, kind: EventKind) -> Self {
        Self {
            id: 0,
            at,
            cluster: cluster.to_string(),
            kind,
            node: None,
            model: None,
            replica: None,
            before: None,
            after: None,
            actor: None,
            detail: None,
        }
    }

    pub fn node(mut self, id: &str) -> Self {
        self.node = Some(id.to_string());
        self
    }

    pub fn model(mut self, name: &str) -> Self {
        self.model = Some(name.to_string());
        self
    }

    pub fn replica(mut self, id: &str) -> Self {
        self.replica = Some(id.to_string());
        self
    }

    pub fn change(mut self, before: impl Into<String>, after: impl Into<String>) -> Self {
        self.before = Some(before.into());
        self.after = Some(after.into());
        self
    }

    pub fn detail(mut self, detail: impl Into<String>) -> Self {
        let detail = detail.into();
        self.detail = (!detail.is_empty()).then_some(detail);
        self
    }

    /// The change as a list shows it: "ready → cordoned", the new state
    /// alone, or nothing (a start of recording keeps the gap's end there).
    pub fn change_text(&self) -> String {
        match (&self.before, &self.after) {
            _ if self.kind == EventKind::RecordingStarted => String::new(),
            (Some(before), Some(after)) => format!("{before} → {after}"),
            (None, Some(after)) => after.clone(),
            _ => String::new(),
        }
    }
}

/// What the journal says of a node's present.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeSince {
    /// Since when it has been in its state.
    pub state: Option<StateSince>,
    /// Since when each of its unhealthy GPUs has been, in the order llmgw
    /// lists them.
    pub unhealthy: Vec<FaultDate>,
}

/// Since when a GPU has been unhealthy, as far as the journal knows.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum FaultDate {
    Since(StateSince),
    /// It turned after the record began, and the record has not taken the
    /// change in yet (it follows a period behind the pages): new, and not
    /// yet dated; never "since at least" the start of recording.
    New,
    /// The record has not begun for its cluster.
    #[default]
    Unknown,
}

impl FaultDate {
    pub fn since(&self) -> Option<&StateSince> {
        match self {
            Self::Since(s) => Some(s),
            Self::New | Self::Unknown => None,
        }
    }
}

/// Since when a node, model or replica has been in the state shown, as far as the
/// journal knows, and for a node the console's last change of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateSince {
    /// Seconds since the Unix epoch.
    pub at: i64,
    /// The record reaches back only to `at` (the console started recording
    /// then): the state may be older.
    pub at_least: bool,
    /// Who put it in this state through a console, and why.
    pub by: Option<String>,
    pub reason: Option<String>,
    /// The server's clock when this was read: what "for 2 h" counts to.
    pub checked: i64,
}
