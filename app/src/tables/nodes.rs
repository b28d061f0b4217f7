//! The table of nodes, on the nodes page and under the overview: capacity,
//! state, why an idle-looking node gets no work, and each node's actions.

use leptos::prelude::*;

use crate::admin_api::types::{NodeState, NodeView};
use crate::components::{DrainDone, NodeActions, PagedTable, SinceNote, StateBadge};
use crate::table::{
    Cell, Column, Exported, ExportedTable, FacetChoice, Field, Row, RowNote, SortKey, TablePage,
    TableQuery, TableRow, columns_text,
};
use crate::{format, urls};

impl TableRow for NodeView {
    type Dates = llmgw_journal::record::NodeSince;
    const KEY_ATTR: &'static str = "data-node";
    const EXPORTED_AS: Option<ExportedTable> = Some(ExportedTable::Nodes);
    const NOTE_HINT: Option<&'static str> = Some(
        "An unhealthy GPU is kept out of placement: usually why a node that looks idle gets no work.",
    );
    const COLUMNS: &'static [Column<Self>] = &[
        Column::<Self>::new("node", "Node", |n| {
            view! { <a href=urls::node(&n.id)>{n.id.clone()}</a> }.into_any()
        })
        .class("id")
        .sort(|n| SortKey::Text(n.id.clone()))
        .text(|n| n.id.clone()),
        Column::<Self>::new("state", "State", |n| {
            // "Since" only where the state is news: on a list of ready
            // nodes it would be a second line on every row.
            let since = n
                .state_since()
                .cloned()
                .filter(|_| n.state != NodeState::Ready);
            view! {
                <StateBadge state=n.state.clone() />
                <DrainDone state=n.state.clone() replicas=n.replicas />
                <SinceNote since />
            }
            .into_any()
        })
        .sort(|n| SortKey::Text(n.state.to_string()))
        .text(|n| n.state.to_string()),
        Column::<Self>::new("gpus", "GPUs", |n| format::gpus(n).into_any())
            .title("free of total")
            .class("num")
            .sort(|n| SortKey::Num(n.gpu_free)),
        Column::<Self>::new("memory", "Memory", |n| {
            format::memory(n.memory_gb).into_any()
        })
        .class("num")
        .sort(|n| SortKey::num_if(n.memory_gb > 0, n.memory_gb)),
        Column::<Self>::new("disk", "Disk", |n| {
            format::disk(n.disk_free_gb, n.disk_total_gb).into_any()
        })
        .title("free / total in the model directories")
        .class("num")
        .sort(|n| SortKey::num_if(n.disk_total_gb > 0, n.disk_free_gb)),
        Column::<Self>::new("classes", "Classes", |n| {
            format::list_or_dash(&n.classes).into_any()
        })
        .sort(|n| SortKey::Text(n.classes.join(",")))
        .text(|n| n.classes.join(" ")),
        Column::<Self>::new("fabrics", "Fabrics", |n| {
            format::list_or_dash(&n.fabrics).into_any()
        })
        .sort(|n| SortKey::Text(n.fabrics.join(",")))
        .text(|n| n.fabrics.join(" ")),
        Column::<Self>::new("replicas", "Replicas", |n| n.replicas.into_any())
            .class("num")
            .sort(|n| SortKey::Num(n.replicas)),
        Column::<Self>::new("seen", "Last seen", |n| {
            format::go_duration(&n.last_seen_ago).into_any()
        })
        .class("num")
        .sort(|n| format::parse_duration(&n.last_seen_ago).map_or(SortKey::Unknown, SortKey::Num)),
        Column::<Self>::new("actions", "Actions", |n| {
            view! { <NodeActions node=n.row.clone() /> }.into_any()
        })
        .class("actions")
        .label_hidden(),
    ];

    fn key(&self) -> String {
        self.id.clone()
    }

    /// The unhealthy GPUs are found by the filter too, though they show
    /// under the row.
    fn text(&self) -> String {
        format!("{} {}", columns_text(self), self.unhealthy.join(" "))
    }

    /// `?state=` and `?unhealthy=1` narrow the list the way the overview's
    /// figures promise.
    fn passes(&self, facet: &str, value: &str) -> bool {
        match facet {
            "state" => self.state.as_str() == value,
            "unhealthy" => !self.unhealthy.is_empty(),
            _ => true,
        }
    }

    fn facets() -> Vec<FacetChoice> {
        let states = [NodeState::Ready, NodeState::Cordoned, NodeState::Draining];
        vec![
            FacetChoice {
                param: "state",
                label: "State",
                values: states
                    .iter()
                    .map(|s| (s.as_str().to_string(), s.as_str().to_string()))
                    .collect(),
            },
            FacetChoice {
                param: "unhealthy",
                label: "GPUs",
                values: vec![("1".into(), "some unhealthy".into())],
            },
        ]
    }

    fn mark(&self) -> Option<&'static str> {
        (!self.unhealthy.is_empty()).then_some("has-unhealthy")
    }

    fn notes(row: &Row<Self>) -> Vec<RowNote> {
        let dates = row.since.as_ref().map(|d| d.unhealthy.as_slice());
        row.unhealthy
            .iter()
            .enumerate()
            .map(|(i, line)| {
                let since = dates
                    .and_then(|d| d.get(i))
                    .and_then(format::unhealthy_since)
                    .map(|s| format!(", {s}"))
                    .unwrap_or_default();
                RowNote {
                    class: "unhealthy",
                    tone: "warn",
                    badge: "unhealthy GPU",
                    text: format!("{line}{since}"),
                }
            })
            .collect()
    }
}

impl Exported for NodeView {
    const FIELDS: &'static [Field<Self>] = &[
        Field::new("node", |n| Cell::text(&n.id)),
        Field::new("state", |n| Cell::text(n.state.as_str())),
        Field::new("gpus_free", |n| Cell::Int(n.gpu_free)),
        Field::new("gpus_total", |n| Cell::Int(n.gpu_total)),
        Field::new("gpus_unhealthy", |n| Cell::Int(n.unhealthy.len() as i64)),
        Field::new("unhealthy", |n| Cell::list(&n.unhealthy)),
        Field::new("memory_gb", |n| Cell::int_if(n.memory_gb > 0, n.memory_gb)),
        Field::new("disk_free_gb", |n| {
            Cell::int_if(n.disk_total_gb > 0, n.disk_free_gb)
        }),
        Field::new("disk_total_gb", |n| {
            Cell::int_if(n.disk_total_gb > 0, n.disk_total_gb)
        }),
        Field::new("classes", |n| Cell::list(&n.classes)),
        Field::new("fabrics", |n| Cell::list(&n.fabrics)),
        Field::new("replicas", |n| Cell::Int(n.replicas)),
        Field::new("last_seen_seconds", |n| {
            format::parse_duration(&n.last_seen_ago).map_or(Cell::Empty, Cell::Int)
        }),
    ];
}

/// One page of the nodes, as the server cut it for the URL's view.
#[component]
pub fn NodesTable(page: TablePage<Row<NodeView>>, query: Memo<TableQuery>) -> impl IntoView {
    view! {
        <PagedTable
            page

            query
            class="data nodes"
            noun="nodes"
            one="node"
            empty="No nodes have registered with the control plane."
        />
    }
}
