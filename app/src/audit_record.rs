//! One attempt at a change, as the audit writes it and `/audit` shows it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What came of an attempt: the journal keeps it with the attempt.
pub use llmgw_journal::Outcome;

/// What an attempt asked of llmgw, as the server function that took it
/// checked it. The function attaches it to the attempt's audit record,
/// and it reaches the journal typed, whatever the form's fields are
/// called.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Asked {
    /// A node to take `state` (llmgw's word), with the operator's reason.
    NodeState {
        node: String,
        state: String,
        reason: Option<String>,
    },
    /// Orphaned weights to be collected on one node, or on every node.
    CollectWeights { node: Option<String> },
}

/// One attempt, as written: one JSON line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditRecord {
    /// Numbers this console's attempts since it started: the record of an
    /// attempt sent and the record of how it ended share it.
    #[serde(default)]
    pub attempt: u64,
    /// RFC 3339, UTC.
    pub time: String,
    /// The cluster the attempt was about (its id); none when the request
    /// named none and the console shows several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
    /// The name llmgw was (or would have been) given.
    pub actor: String,
    /// The user named by a trusted proxy, if any.
    pub user: Option<String>,
    pub peer: Option<String>,
    /// The server function called ("set_node_state").
    pub action: String,
    /// What it was about: the fields the function takes, each cut short,
    /// then what the handler knew (node and state; nodes and every path).
    pub target: BTreeMap<String, serde_json::Value>,
    pub outcome: Outcome,
    pub reason: Option<String>,
    /// Identical refusals from the same peer within the same second are
    /// one record, counted here, rather than as many lines.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub times: u64,
    /// The client went away before the answer: the operator did not see
    /// how the attempt ended, but the console carried it to its end.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub client_left: bool,
    /// What the server function understood it was asked, once it had
    /// checked the request: the journal takes the node, the state and the
    /// reason from here, typed. Not written to the audit log, whose
    /// `target` already holds the request's fields.
    #[serde(skip)]
    pub asked: Option<Asked>,
}

/// `records` (newest first) with one row per attempt: the record of an
/// attempt as sent goes when the record of how it ended is there too. One
/// still alone was never answered (or is being sent now), and stays.
pub fn one_per_attempt(records: Vec<AuditRecord>) -> Vec<AuditRecord> {
    let ended: std::collections::HashSet<u64> = records
        .iter()
        .filter(|r| r.outcome != Outcome::Sent)
        .map(|r| r.attempt)
        .collect();
    records
        .into_iter()
        .filter(|r| r.outcome != Outcome::Sent || !ended.contains(&r.attempt))
        .collect()
}

impl AuditRecord {
    /// A text field of what it was about, if given and not blank.
    pub fn target_text(&self, key: &str) -> Option<&str> {
        self.target
            .get(key)
            .and_then(|v| v.as_str())
            .map(str::trim)
            .filter(|s| !s.is_empty())
    }

    /// Its action as the journal and the events page name it: the
    /// function, then the state asked for, if any, after a space.
    pub fn action_with_state(&self) -> String {
        match self.target_text("state") {
            Some(state) => format!("{} {state}", self.action),
            None => self.action.clone(),
        }
    }
}

fn one() -> u64 {
    1
}

fn is_one(n: &u64) -> bool {
    *n <= 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(attempt: u64, outcome: Outcome) -> AuditRecord {
        AuditRecord {
            attempt,
            time: String::new(),
            cluster: None,
            actor: "jane".into(),
            user: None,
            peer: None,
            action: "set_node_state".into(),
            target: BTreeMap::new(),
            outcome,
            reason: None,
            times: 1,
            client_left: false,
            asked: None,
        }
    }

    #[test]
    fn an_attempt_sent_and_done_is_one_row_and_one_never_answered_stays() {
        let rows = one_per_attempt(vec![
            record(3, Outcome::Refused),
            record(2, Outcome::Done),
            record(2, Outcome::Sent),
            record(1, Outcome::Sent),
        ]);
        let seen: Vec<(u64, Outcome)> = rows.iter().map(|r| (r.attempt, r.outcome)).collect();
        assert_eq!(
            seen,
            [
                (3, Outcome::Refused),
                (2, Outcome::Done),
                (1, Outcome::Sent)
            ]
        );
    }
}
