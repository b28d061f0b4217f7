//! The replicas' table: every column of the CLI, each error on the row it
//! belongs to.

use leptos::prelude::*;

use crate::admin_api::types::ReplicaView;
use crate::components::SinceNote;
use crate::format;
use crate::joins::has_error;
use crate::table::{
    Cell, Column, Exported, ExportedTable, FacetChoice, Field, Row, RowNote, SortKey, TableRow,
};
use crate::urls;

/// "gpu-a:[0 1 2 3] gpu-b:[0 1]", the way the CLI writes shards, each
/// node a link.
fn shards_cell(r: &ReplicaView) -> AnyView {
    r.shards
        .iter()
        .map(|s| {
            let gpus: Vec<String> = s.gpus.iter().map(i64::to_string).collect();
            view! {
                <span class="shard">
                    <a href=urls::node(&s.node)>{s.node.clone()}</a>
                    ":"
                    {format!("[{}]", gpus.join(" "))}
                </span>
                " "
            }
        })
        .collect_view()
        .into_any()
}

fn shard_node_names(r: &ReplicaView, separator: &str) -> String {
    let nodes: Vec<&str> = r.shards.iter().map(|s| s.node.as_str()).collect();
    nodes.join(separator)
}

impl TableRow for ReplicaView {
    type Dates = llmgw_journal::record::StateSince;
    const KEY_ATTR: &'static str = "data-replica";
    const EXPORTED_AS: Option<ExportedTable> = Some(ExportedTable::Replicas);
    const COLUMNS: &'static [Column<Self>] = &[
        Column::<Self>::new("replica", "Replica", |r| r.id.clone().into_any())
            .class("id")
            .sort(|r| SortKey::Text(r.id.clone()))
            .text(|r| r.id.clone()),
        Column::<Self>::new("model", "Model", |r| {
            view! { <a href=urls::placement(&r.model)>{r.model.clone()}</a> }.into_any()
        })
        .sort(|r| SortKey::Text(r.model.clone()))
        .text(|r| r.model.clone()),
        Column::<Self>::new("state", "State", |r| {
            view! {
                <span class=format!("state state-{}", r.state)>{format::or_dash(&r.state)}</span>
                <SinceNote since=r.since.clone() />
            }
            .into_any()
        })
        .sort(|r| SortKey::Text(r.state.clone()))
        .text(|r| r.state.clone()),
        Column::<Self>::new("pool", "Pool", |r| format::or_dash(&r.pool).into_any())
            .sort(|r| SortKey::Text(r.pool.clone()))
            .text(|r| r.pool.clone()),
        Column::<Self>::new("nodes", "Nodes", |r| shards_cell(r))
            .title("node:[GPUs] for each shard")
            .class("shards")
            .sort(|r| SortKey::Text(shard_node_names(r, ",")))
            .text(|r| shard_node_names(r, " ")),
        Column::<Self>::new("age", "Age", |r| format::duration(r.age_sec).into_any())
            .class("num")
            .sort(|r| SortKey::Num(r.age_sec)),
        Column::<Self>::new("idle", "Idle", |r| format::duration(r.idle_sec).into_any())
            .title("since last use; a dash when nothing has reported use yet")
            .class("num")
            .sort(|r| SortKey::num_if(r.idle_sec >= 0, r.idle_sec)),
        Column::<Self>::new("endpoint", "Endpoint", |r| {
            format::or_dash(&r.endpoint).into_any()
        })
        .class("id")
        .sort(|r| SortKey::Text(r.endpoint.clone()))
        .text(|r| format!("{} {}", r.endpoint, r.err)),
    ];

    fn key(&self) -> String {
        self.id.clone()
    }

    /// `?model=` keeps one model's replicas, `?errors=1` those with errors.
    fn passes(&self, facet: &str, value: &str) -> bool {
        match facet {
            "model" => value.is_empty() || self.model == value,
            "errors" => has_error(self),
            _ => true,
        }
    }

    fn facets() -> Vec<FacetChoice> {
        vec![FacetChoice {
            param: "errors",
            label: "Errors",
            values: vec![("1".into(), "reporting an error".into())],
        }]
    }

    fn mark(&self) -> Option<&'static str> {
        has_error(self).then_some("has-error")
    }

    /// The replica's error, then each shard's, on the row they belong to.
    fn notes(row: &Row<Self>) -> Vec<RowNote> {
        let shard_errors = row
            .shards
            .iter()
            .filter(|s| !s.err.is_empty())
            .map(|s| format!("{} on {}: {}", s.id, s.node, s.err));
        std::iter::once(row.err.clone())
            .filter(|e| !e.is_empty())
            .chain(shard_errors)
            .map(|text| RowNote {
                class: "row-error",
                tone: "bad",
                badge: "error",
                text,
            })
            .collect()
    }
}

/// "node:0,1" for each shard, as `llmgw ctl` writes a placement.
fn shards_text(r: &ReplicaView) -> Vec<String> {
    r.shards
        .iter()
        .map(|s| {
            let gpus: Vec<String> = s.gpus.iter().map(i64::to_string).collect();
            format!("{}:{}", s.node, gpus.join(","))
        })
        .collect()
}

/// The replica's error and its shards' own, each once.
fn errors(r: &ReplicaView) -> Vec<String> {
    let mut all: Vec<String> = Vec::new();
    for e in std::iter::once(&r.err).chain(r.shards.iter().map(|s| &s.err)) {
        if !e.is_empty() && !all.contains(e) {
            all.push(e.clone());
        }
    }
    all
}

impl Exported for ReplicaView {
    const FIELDS: &'static [Field<Self>] = &[
        Field::new("replica", |r| Cell::text(&r.id)),
        Field::new("model", |r| Cell::text(&r.model)),
        Field::new("state", |r| Cell::text(&r.state)),
        Field::new("pool", |r| Cell::text(&r.pool)),
        Field::new("shards", |r| Cell::list(&shards_text(r))),
        Field::new("age_seconds", |r| Cell::int_if(r.age_sec >= 0, r.age_sec)),
        Field::new("idle_seconds", |r| {
            Cell::int_if(r.idle_sec >= 0, r.idle_sec)
        }),
        Field::new("endpoint", |r| Cell::text(&r.endpoint)),
        Field::new("errors", |r| Cell::list(&errors(r))),
    ];
}
