//! `/nodes`: every node, its capacity, and why an idle-looking one gets no work.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::admin_api::types::NodeView;
use crate::components::{Live, refresh_ticker};
use crate::present;
use crate::server_fns::nodes::list_nodes;

#[component]
pub fn NodesPage() -> impl IntoView {
    let tick = refresh_ticker();
    let nodes = Resource::new(move || tick.get(), |_| list_nodes());
    view! {
        <Title text="Nodes" />
        <h1>"Nodes"</h1>
        <Live resource=nodes render=render_nodes />
    }
}

fn render_nodes(nodes: Vec<NodeView>) -> impl IntoView {
    view! { <NodesTable nodes /> }
}

#[component]
fn NodesTable(nodes: Vec<NodeView>) -> impl IntoView {
    if nodes.is_empty() {
        return view! {
            <p class="empty">"No nodes have registered with the control plane."</p>
        }
        .into_any();
    }
    let total = nodes.len();
    view! {
        <p class="count">{present::count(total, "node", "nodes")}</p>
        <table class="data nodes">
            <thead>
                <tr>
                    <th scope="col">"Node"</th>
                    <th scope="col">"State"</th>
                    <th scope="col">"GPUs"</th>
                    <th scope="col">"Memory"</th>
                    <th scope="col" title="free / total in the model directories">"Disk"</th>
                    <th scope="col">"Classes"</th>
                    <th scope="col">"Fabrics"</th>
                    <th scope="col">"Replicas"</th>
                    <th scope="col">"Last seen"</th>
                </tr>
            </thead>
            <tbody>
                {nodes.into_iter().map(|n| view! { <NodeRow node=n /> }).collect_view()}
            </tbody>
        </table>
    }
    .into_any()
}

#[component]
fn NodeRow(node: NodeView) -> impl IntoView {
    let unhealthy = node.unhealthy.clone();
    let state_class = format!("state state-{}", node.state.replace(' ', "-"));
    view! {
        <tr data-node=node.id.clone() class:has-unhealthy=!unhealthy.is_empty()>
            <th scope="row" class="id">{node.id.clone()}</th>
            <td>
                <span class=state_class>{present::or_dash(&node.state)}</span>
            </td>
            <td class="num">{present::gpus(&node)}</td>
            <td class="num">{present::memory(node.memory_gb)}</td>
            <td class="num">{present::disk(node.disk_free_gb, node.disk_total_gb)}</td>
            <td>{present::list_or_dash(&node.classes)}</td>
            <td>{present::list_or_dash(&node.fabrics)}</td>
            <td class="num">{node.replicas}</td>
            <td class="num">{present::or_dash(&node.last_seen_ago)}</td>
        </tr>
        {unhealthy
            .into_iter()
            .map(|line| {
                view! {
                    <tr class="unhealthy">
                        <td colspan="9">
                            <span class="badge warn">"unhealthy GPU"</span>
                            " "
                            {line}
                            " — kept out of placement, which is usually why a node that looks idle gets no work."
                        </td>
                    </tr>
                }
            })
            .collect_view()}
    }
}
