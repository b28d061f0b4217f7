//! A row of llmgw's lists as a page shows it: the value as llmgw sent it,
//! and since when the console's journal has seen it so. llmgw keeps no
//! such dates, so they never sit on its wire types; the server pairs them
//! with the rows a page shows, never with the whole list.

use std::ops::Deref;

use serde::{Deserialize, Serialize};

use crate::admin_api::types::{ModelView, NodeView, ReplicaView};
use llmgw_journal::record::{NodeSince, StateSince};

/// `row` and, where the journal knows, since when it has been as it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dated<T, D> {
    pub row: T,
    /// `None` until the server dates the row (or when nothing records its
    /// cluster).
    #[serde(default = "none", skip_serializing_if = "Option::is_none")]
    pub since: Option<D>,
}

/// serde's `default` would ask `D: Default` of every date.
fn none<D>() -> Option<D> {
    None
}

impl<T, D> Dated<T, D> {
    /// `row`, not dated yet.
    pub fn undated(row: T) -> Self {
        Self { row, since: None }
    }
}

/// Each of `rows`, not dated: for a table of rows nothing dates.
pub fn undated<T, D>(rows: Vec<T>) -> Vec<Dated<T, D>> {
    rows.into_iter().map(Dated::undated).collect()
}

impl<T, D> Deref for Dated<T, D> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.row
    }
}

/// A node, since when it has been in its state and each GPU unhealthy.
pub type DatedNode = Dated<NodeView, NodeSince>;

/// A model, since when it has had its status, and whether it is failing.
pub type DatedModel = Dated<ModelView, ModelSince>;

/// A replica, since when it has been in its state.
pub type DatedReplica = Dated<ReplicaView, StateSince>;

/// What a model's row says beyond llmgw's answer: since when it has had
/// its status (from the journal), and the first error a replica of it, or
/// a shard of one, reports (from the replica list; see
/// `joins::mark_failing`), which makes it failing whatever its counts say.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelSince {
    pub status: Option<StateSince>,
    pub failing: Option<String>,
}

/// The dates of a row nothing dates: a table of such rows never has any.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Undated {}

impl DatedNode {
    /// Who set the node's state and why, with since when, where known.
    pub fn state_since(&self) -> Option<&StateSince> {
        self.since.as_ref().and_then(|s| s.state.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dated_row_travels_with_its_date_and_an_undated_one_without() {
        let node = NodeView {
            id: "gpu-01".into(),
            ..Default::default()
        };
        let undated = DatedNode::undated(node.clone());
        let json = serde_json::to_string(&undated).expect("serializes");
        assert!(!json.contains("since"), "{json}");
        assert_eq!(serde_json::from_str::<DatedNode>(&json).ok(), Some(undated));
        let dated = DatedNode {
            row: node,
            since: Some(NodeSince::default()),
        };
        let json = serde_json::to_string(&dated).expect("serializes");
        assert_eq!(serde_json::from_str::<DatedNode>(&json).ok(), Some(dated));
    }
}
