//! `/nodes/{id}`: one node's capacity, unhealthy GPUs, the replicas and
//! shards it holds, and every rejection that names it across all models.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use crate::admin_api::types::ReplicaView;
use crate::components::{
    FilterBar, FixHints, Live, NodeActionDialog, NodeActions, ReceiptBanner, SortHeader, SortKey,
    StateBadge, TableQuery, refresh_ticker, tracked_table_query,
};
use crate::format;
use crate::joins::NodeRejection;
use crate::server_fns::nodes::{NodeReport, inspect_node};
use crate::urls::{self, decode_component};

#[component]
pub fn NodePage() -> impl IntoView {
    let params = use_params_map();
    let id =
        Memo::new(move |_| params.with(|p| decode_component(&p.get("id").unwrap_or_default())));
    let refresh = refresh_ticker();
    let report = Resource::new(
        move || (id.get(), refresh.get()),
        |(id, _)| inspect_node(id),
    );
    view! {
        <Title text=move || id.get() />
        <p class="crumbs"><a href="/nodes">"Nodes"</a> " / "</p>
        <h1 class="id">{move || id.get()}</h1>
        <ReceiptBanner />
        <NodeActionDialog />
        <Live resource=report render=move |r: NodeReport| render_report(id.get_untracked(), r) />
    }
}

fn render_report(id: String, report: NodeReport) -> impl IntoView {
    let query = tracked_table_query();
    view! { <Report id report query /> }
}

/// Both tables share the page's filter; their sort columns have distinct
/// names, so sorting one leaves the other in the server's order.
fn replica_key(r: &ReplicaView, column: &str) -> SortKey {
    match column {
        "replica" => SortKey::Text(r.id.clone()),
        "replica-model" => SortKey::Text(r.model.clone()),
        "replica-state" => SortKey::Text(r.state.clone()),
        "age" => SortKey::Num(r.age_sec),
        _ => SortKey::Unknown,
    }
}

fn rejection_key(r: &NodeRejection, column: &str) -> SortKey {
    match column {
        "model" => SortKey::Text(r.model.clone()),
        "profile" => SortKey::Text(r.rejection.profile.clone()),
        "pool" => SortKey::Text(r.rejection.pool.clone()),
        "reason" => SortKey::Text(r.rejection.reason.clone()),
        _ => SortKey::Unknown,
    }
}

#[component]
fn Report(id: String, report: NodeReport, query: Memo<TableQuery>) -> impl IntoView {
    let Some(node) = report.node else {
        return view! {
            <p class="empty">
                {format!("The control plane does not list a node called {id}. ")}
                <a href="/nodes">"See every node."</a>
            </p>
        }
        .into_any();
    };
    let unhealthy = node.unhealthy.clone();
    let around = report.around;
    let q = query.get();
    let total = report.replicas.len() + report.rejections.len();
    let replicas = q.apply(
        report.replicas,
        |r| format!("{} {} {}", r.id, r.model, r.state),
        replica_key,
    );
    let rejections = q.apply(
        report.rejections,
        |r| {
            format!(
                "{} {} {} {}",
                r.model, r.rejection.profile, r.rejection.pool, r.rejection.reason
            )
        },
        rejection_key,
    );
    let shown = replicas.len() + rejections.len();
    let unexplained = report.unexplained;
    let complete = unexplained.is_empty();
    view! {
        <section class="facts">
            <dl>
                <dt>"State"</dt>
                <dd><StateBadge state=node.state.clone() /></dd>
                <dt>"GPUs"</dt>
                <dd>{format::gpus(&node)}</dd>
                <dt>"Memory"</dt>
                <dd>{format::memory(node.memory_gb)}</dd>
                <dt>"Disk"</dt>
                <dd>{format::disk(node.disk_free_gb, node.disk_total_gb)}</dd>
                <dt>"Classes"</dt>
                <dd>{format::list_or_dash(&node.classes)}</dd>
                <dt>"Fabrics"</dt>
                <dd>{format::list_or_dash(&node.fabrics)}</dd>
                <dt>"Last seen"</dt>
                <dd>{format::or_dash(&node.last_seen_ago)}</dd>
            </dl>
            <NodeActions node=node.clone() />
        </section>
        {(!unhealthy.is_empty())
            .then(|| {
                view! {
                    <section class="unhealthy-list">
                        <h2>"Unhealthy GPUs"</h2>
                        <p>"Kept out of placement; usually why this node gets no work while it looks idle."</p>
                        <ul>{unhealthy.into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}</ul>
                    </section>
                }
            })}
        <FilterBar query shown total noun="replicas and rejections" />
        <section>
            <h2>{format!("Replicas on this node ({})", replicas.len())}</h2>
            {if replicas.is_empty() {
                view! { <p class="empty">"No replica has a shard on this node."</p> }.into_any()
            } else {
                view! {
                    <table class="data">
                        <thead>
                            <tr>
                                <SortHeader query column="replica" label="Replica" />
                                <SortHeader query column="replica-model" label="Model" />
                                <SortHeader query column="replica-state" label="State" />
                                <th scope="col">"Shards here"</th>
                                <SortHeader query column="age" label="Age" />
                            </tr>
                        </thead>
                        <tbody>
                            {replicas
                                .into_iter()
                                .map(|r| {
                                    let here: Vec<String> = r
                                        .shards
                                        .iter()
                                        .filter(|s| s.node == id)
                                        .map(|s| format!("{} GPUs {:?}", s.id, s.gpus))
                                        .collect();
                                    view! {
                                        <tr data-replica=r.id.clone()>
                                            <th scope="row" class="id">{r.id.clone()}</th>
                                            <td><a href=urls::placement(&r.model)>{r.model.clone()}</a></td>
                                            <td>{r.state.clone()}</td>
                                            <td>{here.join(", ")}</td>
                                            <td class="num">{format::duration(r.age_sec)}</td>
                                        </tr>
                                    }
                                })
                                .collect_view()}
                        </tbody>
                    </table>
                }
                    .into_any()
            }}
        </section>
        <section>
            <h2>{format!("Rejections that name this node ({})", rejections.len())}</h2>
            {(!complete).then(|| view! {
                <div class="warn partial" role="status">
                    <p>{format!(
                        "Incomplete: the explanation of {} could not be read, so rejections from {} are missing here.",
                        format::count(unexplained.len(), "model", "models"),
                        if unexplained.len() == 1 { "it" } else { "them" },
                    )}</p>
                    <ul>
                        {unexplained.into_iter().map(|(model, why)| view! {
                            <li><a href=urls::placement(&model)>{model.clone()}</a>": "{why}</li>
                        }).collect_view()}
                    </ul>
                </div>
            })}
            {if rejections.is_empty() {
                complete
                    .then(|| view! { <p class="empty">"No model's placement was turned down on this node."</p> })
                    .into_any()
            } else {
                view! {
                    <table class="data rejections">
                        <thead>
                            <tr>
                                <SortHeader query column="model" label="Model" />
                                <SortHeader query column="profile" label="Profile" />
                                <SortHeader query column="pool" label="Pool" />
                                <SortHeader query column="reason" label="Reason" />
                                <th scope="col">"What would change it"</th>
                            </tr>
                        </thead>
                        <tbody>
                            {let ix = around.index();
                            rejections
                                .into_iter()
                                .map(|r| {
                                    let fixes = ix.fixes(&r.rejection);
                                    view! {
                                        <tr>
                                            <td><a href=urls::placement(&r.model)>{r.model.clone()}</a></td>
                                            <td>{r.rejection.profile}</td>
                                            <td>{format::or_dash(&r.rejection.pool)}</td>
                                            <td>{r.rejection.reason}</td>
                                            <td class="fixes-cell"><FixHints fixes /></td>
                                        </tr>
                                    }
                                })
                                .collect_view()}
                        </tbody>
                    </table>
                }
                    .into_any()
            }}
        </section>
    }
    .into_any()
}
