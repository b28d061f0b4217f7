//! `/nodes`: every node, its capacity, and why an idle-looking one gets no
//! work; cordon, uncordon and drain from each row.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::admin_api::types::NodeView;
use crate::components::table::encode_component;
use crate::components::{
    FilteredTable, Live, NodeActionDialog, NodeActions, ReceiptBanner, SortHeader, SortKey,
    TableQuery, refresh_ticker, use_table_query,
};
use crate::present;
use crate::server_fns::nodes::list_nodes;

pub fn node_href(id: &str) -> String {
    format!("/nodes/{}", encode_component(id))
}

#[component]
pub fn NodesPage() -> impl IntoView {
    let refresh = refresh_ticker();
    let nodes = Resource::new(move || refresh.get(), |_| list_nodes());
    view! {
        <Title text="Nodes" />
        <h1>"Nodes"</h1>
        <ReceiptBanner />
        <NodeActionDialog />
        <Live resource=nodes render=render_nodes />
    }
}

fn render_nodes(nodes: Vec<NodeView>) -> impl IntoView {
    let query = use_table_query();
    move || {
        // Component bodies are untracked: the closure must track the query
        // itself, or a sort or filter changed by client-side navigation
        // would change the URL and not the rows.
        query.track();
        view! { <NodesTable nodes=nodes.clone() query /> }
    }
}

fn sort_key(n: &NodeView, column: &str) -> SortKey {
    match column {
        "state" => SortKey::Text(n.state.clone()),
        "gpus" => SortKey::Num(n.gpu_free),
        "memory" if n.memory_gb > 0 => SortKey::Num(n.memory_gb),
        "disk" if n.disk_total_gb > 0 => SortKey::Num(n.disk_free_gb),
        "memory" | "disk" => SortKey::Unknown,
        "replicas" => SortKey::Num(n.replicas),
        "classes" => SortKey::Text(n.classes.join(",")),
        "fabrics" => SortKey::Text(n.fabrics.join(",")),
        "seen" => present::parse_duration(&n.last_seen_ago).map_or(SortKey::Unknown, SortKey::Num),
        "unhealthy" => SortKey::Num(-(n.unhealthy.len() as i64)),
        _ => SortKey::Text(n.id.clone()),
    }
}

fn row_text(n: &NodeView) -> String {
    format!(
        "{} {} {} {} {}",
        n.id,
        n.state,
        n.classes.join(" "),
        n.fabrics.join(" "),
        n.unhealthy.join(" ")
    )
}

/// `?state=` and `?unhealthy=1` narrow the list the way the overview's
/// figures promise.
fn passes_facets(n: &NodeView, q: &TableQuery) -> bool {
    q.rest.iter().all(|(k, v)| match k.as_str() {
        "state" => n.state == *v,
        "unhealthy" => !n.unhealthy.is_empty(),
        _ => true,
    })
}

#[component]
pub fn NodesTable(nodes: Vec<NodeView>, query: Memo<TableQuery>) -> impl IntoView {
    if nodes.is_empty() {
        return view! {
            <p class="empty">"No nodes have registered with the control plane."</p>
        }
        .into_any();
    }
    let q = query.get();
    let total = nodes.len();
    let nodes: Vec<NodeView> = nodes.into_iter().filter(|n| passes_facets(n, &q)).collect();
    let shown = q.apply(nodes, row_text, sort_key);
    let count = shown.len();
    view! {
        <FilteredTable query shown=count total noun="nodes" one="node">
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
                    {shown.into_iter().map(|n| view! { <NodeRow node=n /> }).collect_view()}
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
                <a href=node_href(&node.id)>{node.id.clone()}</a>
            </th>
            <td>
                <StateBadge state=node.state.clone() />
            </td>
            <td class="num">{present::gpus(&node)}</td>
            <td class="num">{present::memory(node.memory_gb)}</td>
            <td class="num">{present::disk(node.disk_free_gb, node.disk_total_gb)}</td>
            <td>{present::list_or_dash(&node.classes)}</td>
            <td>{present::list_or_dash(&node.fabrics)}</td>
            <td class="num">{node.replicas}</td>
            <td class="num">{present::or_dash(&node.last_seen_ago)}</td>
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

#[component]
pub fn StateBadge(state: String) -> impl IntoView {
    let class = format!("state state-{}", state.replace(' ', "-"));
    view! { <span class=class>{present::or_dash(&state)}</span> }
}

#[component]
pub fn UnhealthyRow(line: String, colspan: u32) -> impl IntoView {
    view! {
        <tr class="unhealthy">
            <td colspan=colspan>
                <span class="badge warn">"unhealthy GPU"</span>
                " "
                {line}
                " — kept out of placement, which is usually why a node that looks idle gets no work."
            </td>
        </tr>
    }
}
