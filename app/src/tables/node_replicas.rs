//! The replicas on one node's page: each replica with a shard there, and
//! which of its shards.

use leptos::prelude::*;

use crate::components::SinceNote;
use crate::dated::DatedReplica;
use crate::format;
use crate::table::{Column, SortKey, TableRow};
use crate::urls;

/// A replica with a shard on the node, and which of its shards are there.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplicaHere {
    replica: DatedReplica,
    here: String,
}

impl ReplicaHere {
    pub fn of(replica: DatedReplica, node: &str) -> Self {
        let here: Vec<String> = replica
            .shards
            .iter()
            .filter(|s| s.node == node)
            .map(|s| format!("{} GPUs {:?}", s.id, s.gpus))
            .collect();
        Self {
            here: here.join(", "),
            replica,
        }
    }
}

// Both tables share the page's filter; their sort columns have distinct
// names, so sorting one leaves the other in the server's order.
impl TableRow for ReplicaHere {
    type Dates = crate::dated::Undated;
    const KEY_ATTR: &'static str = "data-replica";
    const COLUMNS: &'static [Column<Self>] = &[
        Column::<Self>::new("replica", "Replica", |r| r.replica.id.clone().into_any())
            .class("id")
            .sort(|r| SortKey::Text(r.replica.id.clone()))
            .text(|r| r.replica.id.clone()),
        Column::<Self>::new("replica-model", "Model", |r| {
            view! { <a href=urls::placement(&r.replica.model)>{r.replica.model.clone()}</a> }
                .into_any()
        })
        .sort(|r| SortKey::Text(r.replica.model.clone()))
        .text(|r| r.replica.model.clone()),
        Column::<Self>::new("replica-state", "State", |r| {
            view! {
                {format::or_dash(&r.replica.state)}
                <SinceNote since=r.replica.since.clone() />
            }
            .into_any()
        })
        .sort(|r| SortKey::Text(r.replica.state.clone()))
        .text(|r| r.replica.state.clone()),
        Column::<Self>::new("shards", "Shards here", |r| r.here.clone().into_any()),
        Column::<Self>::new("age", "Age", |r| {
            format::duration(r.replica.age_sec).into_any()
        })
        .class("num")
        .sort(|r| SortKey::Num(r.replica.age_sec)),
    ];

    fn key(&self) -> String {
        self.replica.id.clone()
    }
}
