//! One attempt at a change, as the audit writes it and `/audit` shows it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What came of an attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Sent to the admin API, which accepted it.
    Done,
    /// Refused by the console (origin, read-only, input, confirmation).
    Refused,
    /// Sent, and the admin API failed or refused it.
    Failed,
}

/// One attempt, as written: one JSON line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditRecord {
    /// RFC 3339, UTC.
    pub time: String,
    /// The name llmgw was (or would have been) given.
    pub actor: String,
    /// The user named by a trusted proxy, if any.
    pub user: Option<String>,
    pub peer: Option<String>,
    /// The server function called ("set_node_state").
    pub action: String,
    /// What it was about: the request's fields, then what the handler knew
    /// (node and state; nodes and every path).
    pub target: BTreeMap<String, serde_json::Value>,
    pub outcome: Outcome,
    pub reason: Option<String>,
}
