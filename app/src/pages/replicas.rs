//! `/replicas` (`?model=` for one model's): every column of the CLI, with
//! errors on the row they belong to.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::admin_api::types::ReplicaView;
use crate::components::{
    FilteredTable, Live, SortHeader, SortKey, TablePage, TableQuery, TableRow, refresh_ticker,
    tracked_table_query, use_table_query,
};
use crate::format;
use crate::joins::has_error;
use crate::server_fns::cluster::list_replicas;
use crate::urls;

#[component]
pub fn ReplicasPage() -> impl IntoView {
    let params = use_query_map();
    let model = Memo::new(move |_| params.with(|p| p.get("model").unwrap_or_default()));
    let refresh = refresh_ticker();
    let query = use_table_query();
    let replicas = Resource::new(
        move || (refresh.get(), query.with(TableQuery::to_query)),
        |(_, q)| list_replicas(q),
    );
    view! {
        <Title text="Replicas" />
        <h1>
            "Replicas"
            {move || {
                let m = model.get();
                (!m.is_empty())
                    .then(|| view! { " of " <a href=urls::placement(&m)>{m.clone()}</a> })
            }}
        </h1>
        <Live resource=replicas render=render_replicas />
    }
}

fn render_replicas(page: TablePage<ReplicaView>) -> impl IntoView {
    let query = tracked_table_query();
    view! { <ReplicasTable page query /> }
}

/// "gpu-a:[0 1 2 3], gpu-b:[0 1]", the way the CLI writes shards.
fn shard_nodes(r: &ReplicaView) -> Vec<(String, String)> {
    r.shards
        .iter()
        .map(|s| {
            let gpus: Vec<String> = s.gpus.iter().map(i64::to_string).collect();
            (s.node.clone(), format!("[{}]", gpus.join(" ")))
        })
        .collect()
}

impl TableRow for ReplicaView {
    fn text(&self) -> String {
        let r = self;
        let nodes: Vec<&str> = r.shards.iter().map(|s| s.node.as_str()).collect();
        format!(
            "{} {} {} {} {} {} {}",
            r.id,
            r.model,
            r.state,
            r.pool,
            nodes.join(" "),
            r.endpoint,
            r.err
        )
    }

    fn sort_key(&self, column: &str) -> SortKey {
        let r = self;
        match column {
            "model" => SortKey::Text(r.model.clone()),
            "state" => SortKey::Text(r.state.clone()),
            "pool" => SortKey::Text(r.pool.clone()),
            "age" => SortKey::Num(r.age_sec),
            "idle" if r.idle_sec >= 0 => SortKey::Num(r.idle_sec),
            "idle" => SortKey::Unknown,
            "nodes" => SortKey::Text(
                r.shards
                    .iter()
                    .map(|s| s.node.as_str())
                    .collect::<Vec<_>>()
                    .join(","),
            ),
            "endpoint" => SortKey::Text(r.endpoint.clone()),
            _ => SortKey::Text(r.id.clone()),
        }
    }

    /// `?model=` keeps one model's replicas, `?errors=1` those with errors.
    fn passes(&self, facet: &str, value: &str) -> bool {
        match facet {
            "model" => value.is_empty() || self.model == value,
            "errors" => has_error(self),
            _ => true,
        }
    }
}

#[component]
fn ReplicasTable(page: TablePage<ReplicaView>, query: Memo<TableQuery>) -> impl IntoView {
    if page.total == 0 {
        return view! { <p class="empty">"No replicas are running."</p> }.into_any();
    }
    let paging = page.paging();
    let TablePage {
        rows, shown, total, ..
    } = page;
    view! {
        <FilteredTable query shown total noun="replicas" one="replica" paging>
            <table class="data replicas">
                <thead>
                    <tr>
                        <SortHeader query column="replica" label="Replica" />
                        <SortHeader query column="model" label="Model" />
                        <SortHeader query column="state" label="State" />
                        <SortHeader query column="pool" label="Pool" />
                        <SortHeader query column="nodes" label="Nodes" title="node:[GPUs] for each shard" />
                        <SortHeader query column="age" label="Age" />
                        <SortHeader query column="idle" label="Idle" title="since last use; a dash when nothing has reported use yet" />
                        <SortHeader query column="endpoint" label="Endpoint" />
                    </tr>
                </thead>
                <tbody>
                    {rows.into_iter().map(|r| view! { <ReplicaRow replica=r /> }).collect_view()}
                </tbody>
            </table>
        </FilteredTable>
    }
    .into_any()
}

#[component]
fn ReplicaRow(replica: ReplicaView) -> impl IntoView {
    let errors: Vec<String> = std::iter::once(replica.err.clone())
        .filter(|e| !e.is_empty())
        .chain(
            replica
                .shards
                .iter()
                .filter(|s| !s.err.is_empty())
                .map(|s| format!("{} on {}: {}", s.id, s.node, s.err)),
        )
        .collect();
    view! {
        <tr data-replica=replica.id.clone() class:has-error=!errors.is_empty()>
            <th scope="row" class="id">{replica.id.clone()}</th>
            <td><a href=urls::placement(&replica.model)>{replica.model.clone()}</a></td>
            <td><span class=format!("state state-{}", replica.state)>{format::or_dash(&replica.state)}</span></td>
            <td>{format::or_dash(&replica.pool)}</td>
            <td class="shards">
                {shard_nodes(&replica)
                    .into_iter()
                    .map(|(node, gpus)| view! { <span class="shard"><a href=urls::node(&node)>{node.clone()}</a> ":" {gpus}</span> " " })
                    .collect_view()}
            </td>
            <td class="num">{format::duration(replica.age_sec)}</td>
            <td class="num">{format::duration(replica.idle_sec)}</td>
            <td class="id">{format::or_dash(&replica.endpoint)}</td>
        </tr>
        {errors
            .into_iter()
            .map(|e| {
                view! {
                    <tr class="row-error">
                        <td colspan="8"><span class="badge bad">"error"</span> " " {e}</td>
                    </tr>
                }
            })
            .collect_view()}
    }
}
