//! `/nodes`: every node, its capacity, and why an idle-looking one gets no
//! work; cordon, uncordon and drain from each row.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::components::{NodeActionDialog, ReceiptBanner};
use crate::dated::DatedNode;
use crate::live::Live;
use crate::server_fns::nodes::list_nodes;
use crate::table::{TablePage, TableQuery, use_table_query};
use crate::tables::NodesTable;

#[component]
pub fn NodesPage() -> impl IntoView {
    let query = use_table_query();
    let nodes = Resource::new(move || query.with(TableQuery::to_query), list_nodes);
    view! {
        <Title text=crate::site_map::NODES.title />
        <h1>"Nodes"</h1>
        <ReceiptBanner />
        <NodeActionDialog />
        <Live resource=nodes render={move |page: TablePage<DatedNode>| view! { <NodesTable page query /> }} />
    }
}
