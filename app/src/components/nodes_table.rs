//! The table of nodes, on the nodes page and under the overview: capacity,
//! state, why an idle-looking node gets no work, and each node's actions.

use leptos::prelude::*;

use super::table::{TablePage, TableRow};
use super::{
    FilteredTable, NodeActions, SortHeader, SortKey, StateBadge, TableQuery, UnhealthyRow,
};
use crate::admin_api::types::NodeView;
use crate::{format, urls};

impl TableRow for NodeView {
    fn text(&self) -> String {
        format!(
            "{} {} {} {} {}",
            self.id,
            self.state,
            self.classes.join(" "),
            self.fabrics.join(" "),
            self.unhealthy.join(" ")
        )
    }

    fn sort_key(&self, column: &str) -> SortKey {
        let n = self;
        match column {
            "state" => SortKey::Text(n.state.to_string()),
            "gpus" => SortKey::Num(n.gpu_free),
            "memory" if n.memory_gb > 0 => SortKey::Num(n.memory_gb),
            "disk" if n.disk_total_gb > 0 => SortKey::Num(n.disk_free_gb),
            "memory" | "disk" => SortKey::Unknown,
            "replicas" => SortKey::Num(n.replicas),
            "classes" => SortKey::Text(n.classes.join(",")),
            "fabrics" => SortKey::Text(n.fabrics.join(",")),
            "seen" => {
                format::parse_duration(&n.last_seen_ago).map_or(SortKey::Unknown, SortKey::Num)
            }
            "unhealthy" => SortKey::Num(-(n.unhealthy.len() as i64)),
            _ => SortKey::Text(n.id.clone()),
        }
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
}

/// One page of the nodes, as the server cut it for the URL's view.
#[component]
pub fn NodesTable(page: TablePage<NodeView>, query: Memo<TableQuery>) -> impl IntoView {
    if page.total == 0 {
        return view! {
            <p class="empty">"No nodes have registered with the control plane."</p>
        }
        .into_any();
    }
    let paging = page.paging();
    let TablePage {
        rows, shown, total, ..
    } = page;
    view! {
        <FilteredTable query shown total noun="nodes" one="node" paging>
            <table class="data nodes">
                <thead>
                    <tr>
                        <SortHeader query column="node" label="Node" />
                        <SortHeader query column="state" label="State" />
                        <SortHeader query column="gpus" label="GPUs" title="free of total" />
                        <SortHeader query column="memory" label="Memory" />
                        <SortHeader query column="disk" label="Disk" title="free / total in the model directories" />
                        <SortHeader query column="classes" label="Classes" />
                        <SortHeader query column="fabrics" label="Fabrics" />
                        <SortHeader query column="replicas" label="Replicas" />
                        <SortHeader query column="seen" label="Last seen" />
                        <th scope="col"><span class="visually-hidden">"Actions"</span></th>
                    </tr>
                </thead>
                <tbody>
                    {rows.into_iter().map(|n| view! { <NodeRow node=n /> }).collect_view()}
                </tbody>
            </table>
        </FilteredTable>
    }
    .into_any()
}

#[component]
fn NodeRow(node: NodeView) -> impl IntoView {
    let unhealthy = node.unhealthy.clone();
    view! {
        <tr data-node=node.id.clone() class:has-unhealthy=!unhealthy.is_empty()>
            <th scope="row" class="id">
                <a href=urls::node(&node.id)>{node.id.clone()}</a>
            </th>
            <td>
                <StateBadge state=node.state.clone() />
            </td>
            <td class="num">{format::gpus(&node)}</td>
            <td class="num">{format::memory(node.memory_gb)}</td>
            <td class="num">{format::disk(node.disk_free_gb, node.disk_total_gb)}</td>
            <td>{format::list_or_dash(&node.classes)}</td>
            <td>{format::list_or_dash(&node.fabrics)}</td>
            <td class="num">{node.replicas}</td>
            <td class="num">{format::or_dash(&node.last_seen_ago)}</td>
            <td class="actions">
                <NodeActions node=node.clone() />
            </td>
        </tr>
        {unhealthy
            .into_iter()
            .map(|line| view! { <UnhealthyRow line colspan=10 /> })
            .collect_view()}
    }
}
