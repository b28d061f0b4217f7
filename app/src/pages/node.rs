//! `/nodes/{id}`: one node's capacity, unhealthy GPUs, the replicas and
//! shards it holds, and every rejection that names it across all models.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use super::nodes::StateBadge;
use super::placement::placement_href;
use crate::components::table::decode_component;
use crate::components::{Live, NodeActionDialog, NodeActions, ReceiptBanner, refresh_ticker};
use crate::present;
use crate::server_fns::nodes::{NodeReport, inspect_node};

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
    view! {
        <section class="facts">
            <dl>
                <dt>"State"</dt>
                <dd><StateBadge state=node.state.clone() /></dd>
                <dt>"GPUs"</dt>
                <dd>{present::gpus(&node)}</dd>
                <dt>"Memory"</dt>
                <dd>{present::memory(node.memory_gb)}</dd>
                <dt>"Disk"</dt>
                <dd>{present::disk(node.disk_free_gb, node.disk_total_gb)}</dd>
                <dt>"Classes"</dt>
                <dd>{present::list_or_dash(&node.classes)}</dd>
                <dt>"Fabrics"</dt>
                <dd>{present::list_or_dash(&node.fabrics)}</dd>
                <dt>"Last seen"</dt>
                <dd>{present::or_dash(&node.last_seen_ago)}</dd>
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
        <section>
            <h2>{format!("Replicas on this node ({})", report.replicas.len())}</h2>
            {if report.replicas.is_empty() {
                view! { <p class="empty">"No replica has a shard on this node."</p> }.into_any()
            } else {
                view! {
                    <table class="data">
                        <thead>
                            <tr>
                                <th scope="col">"Replica"</th>
                                <th scope="col">"Model"</th>
                                <th scope="col">"State"</th>
                                <th scope="col">"Shards here"</th>
                                <th scope="col">"Age"</th>
                            </tr>
                        </thead>
                        <tbody>
                            {report
                                .replicas
                                .into_iter()
                                .map(|r| {
                                    let here: Vec<String> = r
                                        .shards
                                        .iter()
                                        .filter(|s| s.node == id)
                                        .map(|s| format!("{} GPUs {:?}", s.id, s.gpus))
                                        .collect();
                                    view! {
                                        <tr>
                                            <th scope="row" class="id">{r.id.clone()}</th>
                                            <td><a href=placement_href(&r.model)>{r.model.clone()}</a></td>
                                            <td>{r.state.clone()}</td>
                                            <td>{here.join(", ")}</td>
                                            <td class="num">{present::duration(r.age_sec)}</td>
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
            <h2>{format!("Rejections that name this node ({})", report.rejections.len())}</h2>
            {if report.rejections.is_empty() {
                view! { <p class="empty">"No model's placement was turned down on this node."</p> }.into_any()
            } else {
                view! {
                    <table class="data rejections">
                        <thead>
                            <tr>
                                <th scope="col">"Model"</th>
                                <th scope="col">"Profile"</th>
                                <th scope="col">"Pool"</th>
                                <th scope="col">"Reason"</th>
                            </tr>
                        </thead>
                        <tbody>
                            {report
                                .rejections
                                .into_iter()
                                .map(|r| {
                                    view! {
                                        <tr>
                                            <td><a href=placement_href(&r.model)>{r.model.clone()}</a></td>
                                            <td>{r.rejection.profile}</td>
                                            <td>{present::or_dash(&r.rejection.pool)}</td>
                                            <td>{r.rejection.reason}</td>
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
