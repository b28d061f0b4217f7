//! The admin API's shapes, defined once and used by the client, the server
//! functions, the simulator and the pages alike.
//!
//! The real server's JSON tags are unpublished, so decoding is forgiving on
//! purpose: every field is also accepted under its Go name (`GPUFree`; only
//! on the server, which alone reads the admin API: the browser reads the
//! console's own encoding, and need not carry the names), unknown
//! fields are ignored, and a missing field or a Go `null` means "not reported"
//! rather than a failed page. Encoding always uses this project's snake_case.

use serde::{Deserialize, Deserializer, Serialize};

/// Reads `null` as the field's default. Go encodes a nil slice as `null`, and
/// an older server may send `null` where a newer one sends a value.
fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// Seconds from a replica's last use to now. Anything below zero means that
/// nothing has reported use yet, and `null` is read the same way.
pub const IDLE_NOT_REPORTED: i64 = -1;

fn null_as_idle_unknown<'de, D>(d: D) -> Result<i64, D::Error>
where
    D: Deserializer<'de>,
{
    Ok(Option::<i64>::deserialize(d)?.unwrap_or(IDLE_NOT_REPORTED))
}

/// A GPU node as the control plane sees it (`GET /api/v1/nodes`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct NodeView {
    #[cfg_attr(feature = "ssr", serde(alias = "ID"))]
    #[serde(deserialize_with = "null_as_default")]
    pub id: String,
    #[cfg_attr(feature = "ssr", serde(alias = "State"))]
    #[serde(deserialize_with = "null_as_default")]
    pub state: NodeState,
    #[cfg_attr(feature = "ssr", serde(alias = "GPUFree"))]
    #[serde(deserialize_with = "null_as_default")]
    pub gpu_free: i64,
    #[cfg_attr(feature = "ssr", serde(alias = "GPUTotal"))]
    #[serde(deserialize_with = "null_as_default")]
    pub gpu_total: i64,
    /// 0 when the agent did not report it (older agents do not).
    #[cfg_attr(feature = "ssr", serde(alias = "MemoryGB"))]
    #[serde(deserialize_with = "null_as_default")]
    pub memory_gb: i64,
    #[cfg_attr(feature = "ssr", serde(alias = "DiskFreeGB"))]
    #[serde(deserialize_with = "null_as_default")]
    pub disk_free_gb: i64,
    /// 0 when unknown: an older agent, or a node with no model directories.
    #[cfg_attr(feature = "ssr", serde(alias = "DiskTotalGB"))]
    #[serde(deserialize_with = "null_as_default")]
    pub disk_total_gb: i64,
    #[cfg_attr(feature = "ssr", serde(alias = "Classes"))]
    #[serde(deserialize_with = "null_as_default")]
    pub classes: Vec<String>,
    #[cfg_attr(feature = "ssr", serde(alias = "Fabrics"))]
    #[serde(deserialize_with = "null_as_default")]
    pub fabrics: Vec<String>,
    #[cfg_attr(feature = "ssr", serde(alias = "Replicas"))]
    #[serde(deserialize_with = "null_as_default")]
    pub replicas: i64,
    /// Already formatted by the server ("3s").
    #[cfg_attr(feature = "ssr", serde(alias = "LastSeenAgo"))]
    #[serde(deserialize_with = "null_as_default")]
    pub last_seen_ago: String,
    /// One line per unhealthy GPU; those GPUs are kept out of placement.
    #[cfg_attr(feature = "ssr", serde(alias = "Unhealthy"))]
    #[serde(deserialize_with = "null_as_default")]
    pub unhealthy: Vec<String>,
}

/// A node's state as the control plane reports it. llmgw may add states: an
/// unknown one is kept and shown as it was sent, and counts as neither ready
/// nor cordoned.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum NodeState {
    /// Placement may use it.
    Ready,
    /// No new work; what runs there keeps running.
    Cordoned,
    /// Cordoned, and its replicas are moving off.
    Draining,
    /// A state this console does not know, as it was sent.
    Other(String),
    /// No state in the answer (missing, `null` or empty): shown as a dash.
    #[default]
    NotReported,
}

impl NodeState {
    pub fn as_str(&self) -> &str {
        match self {
            Self::Ready => "ready",
            Self::Cordoned => "cordoned",
            Self::Draining => "draining",
            Self::Other(s) => s,
            Self::NotReported => "",
        }
    }

    /// Whether an operator took it out of placement (cordoned or draining):
    /// what uncordon undoes.
    pub fn is_cordoned(&self) -> bool {
        matches!(self, Self::Cordoned | Self::Draining)
    }
}

impl From<String> for NodeState {
    fn from(s: String) -> Self {
        match s.as_str() {
            "ready" => Self::Ready,
            "cordoned" => Self::Cordoned,
            "draining" => Self::Draining,
            "" => Self::NotReported,
            _ => Self::Other(s),
        }
    }
}

impl From<NodeState> for String {
    fn from(s: NodeState) -> Self {
        s.as_str().to_string()
    }
}

impl From<TargetState> for NodeState {
    fn from(t: TargetState) -> Self {
        match t {
            TargetState::Ready => Self::Ready,
            TargetState::Cordoned => Self::Cordoned,
            TargetState::Draining => Self::Draining,
        }
    }
}

impl std::fmt::Display for NodeState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A catalog entry and its replica counts (`GET /api/v1/models`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ModelView {
    #[cfg_attr(feature = "ssr", serde(alias = "Name"))]
    #[serde(deserialize_with = "null_as_default")]
    pub name: String,
    #[cfg_attr(feature = "ssr", serde(alias = "Ready"))]
    #[serde(deserialize_with = "null_as_default")]
    pub ready: i64,
    #[cfg_attr(feature = "ssr", serde(alias = "Min"))]
    #[serde(deserialize_with = "null_as_default")]
    pub min: i64,
    #[cfg_attr(feature = "ssr", serde(alias = "Total"))]
    #[serde(deserialize_with = "null_as_default")]
    pub total: i64,
    #[cfg_attr(feature = "ssr", serde(alias = "Aliases"))]
    #[serde(deserialize_with = "null_as_default")]
    pub aliases: Vec<String>,
    #[cfg_attr(feature = "ssr", serde(alias = "Profiles"))]
    #[serde(deserialize_with = "null_as_default")]
    pub profiles: Vec<String>,
    #[cfg_attr(feature = "ssr", serde(alias = "Fallbacks"))]
    #[serde(deserialize_with = "null_as_default")]
    pub fallbacks: Vec<String>,
}

/// One part of a replica, on one node.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Shard {
    #[cfg_attr(feature = "ssr", serde(alias = "ID"))]
    #[serde(deserialize_with = "null_as_default")]
    pub id: String,
    #[cfg_attr(feature = "ssr", serde(alias = "Node"))]
    #[serde(deserialize_with = "null_as_default")]
    pub node: String,
    #[cfg_attr(feature = "ssr", serde(alias = "GPUs"))]
    #[serde(deserialize_with = "null_as_default")]
    pub gpus: Vec<i64>,
    #[cfg_attr(feature = "ssr", serde(alias = "Err"))]
    #[serde(deserialize_with = "null_as_default")]
    pub err: String,
}

/// A running (or starting) copy of a model (`GET /api/v1/replicas`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReplicaView {
    #[cfg_attr(feature = "ssr", serde(alias = "ID"))]
    #[serde(deserialize_with = "null_as_default")]
    pub id: String,
    #[cfg_attr(feature = "ssr", serde(alias = "Model"))]
    #[serde(deserialize_with = "null_as_default")]
    pub model: String,
    #[cfg_attr(feature = "ssr", serde(alias = "State"))]
    #[serde(deserialize_with = "null_as_default")]
    pub state: String,
    #[cfg_attr(feature = "ssr", serde(alias = "Pool"))]
    #[serde(deserialize_with = "null_as_default")]
    pub pool: String,
    #[cfg_attr(feature = "ssr", serde(alias = "Endpoint"))]
    #[serde(deserialize_with = "null_as_default")]
    pub endpoint: String,
    #[cfg_attr(feature = "ssr", serde(alias = "Shards"))]
    #[serde(deserialize_with = "null_as_default")]
    pub shards: Vec<Shard>,
    #[cfg_attr(feature = "ssr", serde(alias = "AgeSec"))]
    #[serde(deserialize_with = "null_as_default")]
    pub age_sec: i64,
    /// Negative when nothing has reported use yet (see [`IDLE_NOT_REPORTED`]).
    #[cfg_attr(feature = "ssr", serde(alias = "IdleSec"))]
    #[serde(deserialize_with = "null_as_idle_unknown")]
    pub idle_sec: i64,
    /// Replica-level error, empty when none.
    #[cfg_attr(feature = "ssr", serde(alias = "Err"))]
    #[serde(deserialize_with = "null_as_default")]
    pub err: String,
}

impl Default for ReplicaView {
    fn default() -> Self {
        Self {
            id: String::new(),
            model: String::new(),
            state: String::new(),
            pool: String::new(),
            endpoint: String::new(),
            shards: Vec::new(),
            age_sec: 0,
            // A missing idle time is "not reported", not "just used".
            idle_sec: IDLE_NOT_REPORTED,
            err: String::new(),
        }
    }
}

/// A candidate placement the scheduler turned down, and why.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Rejection {
    #[cfg_attr(feature = "ssr", serde(alias = "Profile"))]
    #[serde(deserialize_with = "null_as_default")]
    pub profile: String,
    /// May be empty: not every rejection concerns a pool.
    #[cfg_attr(feature = "ssr", serde(alias = "Pool"))]
    #[serde(deserialize_with = "null_as_default")]
    pub pool: String,
    /// May be empty: not every rejection concerns a node.
    #[cfg_attr(feature = "ssr", serde(alias = "Node"))]
    #[serde(deserialize_with = "null_as_default")]
    pub node: String,
    #[cfg_attr(feature = "ssr", serde(alias = "Reason"))]
    #[serde(deserialize_with = "null_as_default")]
    pub reason: String,
}

/// Why a model is or is not placed (`GET /api/v1/explain-placement`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ExplainView {
    #[cfg_attr(feature = "ssr", serde(alias = "Model"))]
    #[serde(deserialize_with = "null_as_default")]
    pub model: String,
    #[cfg_attr(feature = "ssr", serde(alias = "Placed"))]
    #[serde(deserialize_with = "null_as_default")]
    pub placed: bool,
    #[cfg_attr(feature = "ssr", serde(alias = "Rejections"))]
    #[serde(deserialize_with = "null_as_default")]
    pub rejections: Vec<Rejection>,
}

/// Cached weights llmgw fetched itself for models no longer in the catalog
/// (`GET /api/v1/weights/orphans`). Files an operator put on a node are never
/// listed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct OrphanView {
    #[cfg_attr(feature = "ssr", serde(alias = "Node"))]
    #[serde(deserialize_with = "null_as_default")]
    pub node: String,
    #[cfg_attr(feature = "ssr", serde(alias = "Paths"))]
    #[serde(deserialize_with = "null_as_default")]
    pub paths: Vec<String>,
    /// 0 when the node did not report a size.
    #[cfg_attr(feature = "ssr", serde(alias = "Bytes"))]
    #[serde(deserialize_with = "null_as_default")]
    pub bytes: i64,
}

/// One node's answer to a collection (`POST /api/v1/weights/collect`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CollectResult {
    #[cfg_attr(feature = "ssr", serde(alias = "Node"))]
    #[serde(deserialize_with = "null_as_default")]
    pub node: String,
    #[cfg_attr(feature = "ssr", serde(alias = "Files"))]
    #[serde(deserialize_with = "null_as_default")]
    pub files: i64,
    #[cfg_attr(feature = "ssr", serde(alias = "Bytes"))]
    #[serde(deserialize_with = "null_as_default")]
    pub bytes: i64,
    /// This node's refusal or failure; the other nodes' results still stand.
    #[cfg_attr(feature = "ssr", serde(alias = "Error"))]
    #[serde(
        deserialize_with = "null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub error: String,
}

/// Body of `POST /api/v1/weights/collect`; an empty node means every node.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CollectRequest {
    #[cfg_attr(feature = "ssr", serde(alias = "Node"))]
    #[serde(deserialize_with = "null_as_default")]
    pub node: String,
}

/// A state an operator can put a node in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TargetState {
    /// Uncordon: placement may use the node again.
    Ready,
    /// Cordon: no new work; what runs there keeps running.
    Cordoned,
    /// Drain: move work off, one replica at a time.
    Draining,
}

impl TargetState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ready => "ready",
            Self::Cordoned => "cordoned",
            Self::Draining => "draining",
        }
    }
}

/// Body of `POST /api/v1/nodes/{id}/state`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeStateRequest {
    pub state: TargetState,
}

/// Answer of `POST /api/v1/nodes/{id}/state`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct NodeStateChange {
    #[cfg_attr(feature = "ssr", serde(alias = "ID"))]
    #[serde(deserialize_with = "null_as_default")]
    pub id: String,
    #[cfg_attr(feature = "ssr", serde(alias = "State"))]
    #[serde(deserialize_with = "null_as_default")]
    pub state: NodeState,
}

/// The error envelope of every non-200 answer.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ErrorBody {
    #[cfg_attr(feature = "ssr", serde(alias = "Error"))]
    #[serde(deserialize_with = "null_as_default")]
    pub error: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_field_names_nulls_and_unknown_fields_decode() {
        let json = r#"[{"ID":"gpu-a","State":"ready","GPUFree":2,"GPUTotal":8,
            "MemoryGB":null,"Classes":null,"Unhealthy":["GPU 3: ECC errors"],
            "SomethingNew":{"x":1}}]"#;
        let nodes: Vec<NodeView> = serde_json::from_str(json).expect("decodes");
        assert_eq!(nodes[0].id, "gpu-a");
        assert_eq!(nodes[0].gpu_free, 2);
        assert_eq!(nodes[0].memory_gb, 0);
        assert!(nodes[0].classes.is_empty());
        assert_eq!(nodes[0].unhealthy, vec!["GPU 3: ECC errors".to_string()]);
    }

    #[test]
    fn a_missing_idle_time_reads_as_not_reported() {
        let r: ReplicaView = serde_json::from_str(r#"{"id":"r1"}"#).expect("decodes");
        assert_eq!(r.idle_sec, IDLE_NOT_REPORTED);
        let r: ReplicaView = serde_json::from_str(r#"{"IdleSec":null}"#).expect("decodes");
        assert_eq!(r.idle_sec, IDLE_NOT_REPORTED);
        let r: ReplicaView = serde_json::from_str(r#"{"idle_sec":0}"#).expect("decodes");
        assert_eq!(r.idle_sec, 0);
    }

    #[test]
    fn collect_result_omits_an_empty_error() {
        let ok = CollectResult {
            node: "n".into(),
            files: 2,
            bytes: 10,
            error: String::new(),
        };
        let s = serde_json::to_string(&ok).expect("encodes");
        assert!(!s.contains("error"), "{s}");
    }

    #[test]
    fn node_states_decode_known_unknown_and_missing() {
        let json = r#"[{"state":"draining"},{"State":"quarantined"},{"state":null},{}]"#;
        let nodes: Vec<NodeView> = serde_json::from_str(json).expect("decodes");
        let states: Vec<&NodeState> = nodes.iter().map(|n| &n.state).collect();
        assert_eq!(
            states,
            [
                &NodeState::Draining,
                &NodeState::Other("quarantined".into()),
                &NodeState::NotReported,
                &NodeState::NotReported
            ]
        );
        assert!(NodeState::Draining.is_cordoned() && !NodeState::Ready.is_cordoned());
        assert!(!NodeState::Other("quarantined".into()).is_cordoned());
        let back = serde_json::to_string(&nodes[1].state).expect("encodes");
        assert_eq!(back, r#""quarantined""#);
    }

    #[test]
    fn target_state_is_lowercase_on_the_wire() {
        let body = NodeStateRequest {
            state: TargetState::Draining,
        };
        assert_eq!(
            serde_json::to_string(&body).expect("encodes"),
            r#"{"state":"draining"}"#
        );
        assert!(serde_json::from_str::<NodeStateRequest>(r#"{"state":"gone"}"#).is_err());
    }
}
