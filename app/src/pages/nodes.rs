//! `/nodes`: every node, its capacity, and why an idle-looking one gets no
//! work; cordon, uncordon and drain from each row.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::admin_api::types::NodeView;
use crate::components::{
    Live, NodeActionDialog, NodesTable, ReceiptBanner, RowSignals, TablePage, TableQuery,
    refresh_ticker, table_query_for_render, use_table_query,
};
use crate::server_fns::nodes::list_nodes;

#[component]
pub fn NodesPage() -> impl IntoView {
    let refresh = refresh_ticker();
    let query = use_table_query();
    let nodes = Resource::new(
        move || (refresh.get(), query.with(TableQuery::to_query)),
        |(_, q)| list_nodes(q),
    );
    let signals = RowSignals::new();
    view! {
        <Title text="Nodes" />
        <h1>"Nodes"</h1>
        <ReceiptBanner />
        <NodeActionDialog />
        <Live resource=nodes render=move |page| render_nodes(page, query, signals.clone()) />
    }
}

fn render_nodes(
    page: TablePage<NodeView>,
    query: Memo<TableQuery>,
    signals: RowSignals<NodeView>,
) -> impl IntoView {
    let query = table_query_for_render(query);
    view! { <NodesTable page query signals /> }
}
