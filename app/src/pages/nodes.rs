//! `/nodes`: every node, its capacity, and why an idle-looking one gets no
//! work; cordon, uncordon and drain from each row.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::admin_api::types::NodeView;
use crate::components::{
    Live, NodeActionDialog, NodesTable, ReceiptBanner, refresh_ticker, tracked_table_query,
};
use crate::server_fns::nodes::list_nodes;

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
    let query = tracked_table_query();
    view! { <NodesTable nodes query /> }
}
