//! `/nodes/{id}`: one node's capacity, unhealthy GPUs, the replicas and
//! shards it holds, and every rejection that names it in the explanations
//! of the models short of their wanted count.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::components::{
    DataTable, FilterBar, Known, NamedHeading, NodeActionDialog, NodeActions, ReceiptBanner,
    StateBadge,
};
use crate::dated::undated;
use crate::format;
use crate::live::Live;
use crate::server_fns::nodes::{NodeReport, inspect_node};
use crate::table::{TableQuery, use_table_query};
use crate::tables::{RejectionHere, ReplicaHere};
use crate::urls::{self, decode_component};

#[component]
pub fn NodePage() -> impl IntoView {
    let params = use_params_map();
    let id =
        Memo::new(move |_| params.with(|p| decode_component(&p.get("id").unwrap_or_default())));
    let report = Resource::new(move || id.get(), inspect_node);
    let query = use_table_query();
    // The title is read when the document's head is written, after the
    // body: by then a reactive value of the page's may be gone (Leptos
    // then panics), so it is the text itself.
    view! {
        <p class="crumbs"><a href=urls::scoped("/nodes")>"Nodes"</a> " / "</p>
        // Read, not awaited, as `Live` reads it: the name is the heading
        // only once the answer says the node is listed.
        <Transition fallback=|| ()>
            {move || report.get().map(|answer| {
                let known = match &answer {
                    Ok(r) if r.node.is_some() => Known::Listed,
                    Ok(_) => Known::Missing,
                    Err(_) => Known::Unsure,
                };
                let name = id.get_untracked();
                view! { <NamedHeading name=name.clone() known what="node" title=name /> }
            })}
        </Transition>
        <ReceiptBanner />
        <NodeActionDialog />
        <Live
            resource=report
            render={move |report: NodeReport| view! { <Report id=id.get_untracked() report query /> }}
        />
        <crate::components::History
            title="History of this node"
            query=crate::events_query::EventQuery {
                node: Some(id.get_untracked()),
                limit: Some(10),
                ..Default::default()
            }
        />
    }
}

#[component]
fn Report(id: String, report: NodeReport, query: Memo<TableQuery>) -> impl IntoView {
    let Some(node) = report.node else {
        return view! {
            <p class="empty">
                {format!("The control plane does not list a node called “{id}”. ")}
                <a href=urls::scoped("/nodes")>"See every node."</a>
            </p>
        }
        .into_any();
    };
    let dates = node.since.clone().unwrap_or_default();
    let unhealthy: Vec<(String, Option<String>)> = node
        .unhealthy
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let date = dates.unhealthy.get(i).and_then(format::unhealthy_since);
            (line.clone(), date)
        })
        .collect();
    let also_in = view! {
        <crate::components::AlsoIn tags=report.also_in path=format!("/nodes/{}", urls::encode_component(&id)) />
    };
    let around = report.around;
    let q = query.get();
    let total = report.replicas.len() + report.rejections.len();
    let running: Vec<_> = report.replicas.iter().map(|r| r.row.clone()).collect();
    let gpus = view! { <crate::components::GpuStrip node=node.row.clone() replicas=running /> };
    let replicas = q.apply(
        report
            .replicas
            .into_iter()
            .map(|r| ReplicaHere::of(r, &id))
            .collect(),
    );
    let ix = around.index();
    let rejections = q.apply(RejectionHere::advised(report.rejections, &ix));
    let shown = replicas.len() + rejections.len();
    let unexplained = report.unexplained;
    let gathering = report.gathering;
    let complete = unexplained.is_empty() && gathering.is_none();
    let team = view! { <crate::components::TeamLinks node=id.clone() /> };
    view! {
        {also_in}
        {team}
        <section class="facts">
            <dl>
                <dt>"State"</dt>
                <dd>
                    <StateBadge state=node.state.clone() />
                    <crate::components::DrainDone state=node.state.clone() replicas=node.replicas />
                    {dates.state.as_ref().map(|s| view! { " " <span class="since" title=crate::components::badges::JOURNAL_NOTE>{format::since(s)}</span> })}
                </dd>
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
                <dd>{format::go_duration(&node.last_seen_ago)}</dd>
            </dl>
            <NodeActions node=node.row.clone() />
        </section>
        {gpus}
        {(!unhealthy.is_empty())
            .then(|| {
                view! {
                    <section class="unhealthy-list">
                        <h2>"Unhealthy GPUs"</h2>
                        <p>"Kept out of placement; usually why this node gets no work while it looks idle."</p>
                        <ul>{unhealthy.into_iter().map(|(l, since)| view! {
                            <li><span class="gpu">{l}</span>{since.map(|s| view! { " " <span class="since" title=crate::components::badges::JOURNAL_NOTE>{s}</span> })}</li>
                        }).collect_view()}</ul>
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
                    <DataTable rows=undated(replicas) query class="data" />
                }
                    .into_any()
            }}
        </section>
        <section>
            <h2>{format!("Rejections that name this node ({})", rejections.len())}</h2>
            <p class="scope">"From the models short of their wanted count: a model placed at its count is not asked about."</p>
            {gathering.map(|(read, of)| view! {
                <p class="warn gathering" role="status">{format!(
                    "Still reading explanations: {read} of {of} models so far; this list grows as they arrive."
                )}</p>
            })}
            {(!unexplained.is_empty()).then(|| view! {
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
                    <DataTable rows=undated(rejections) query class="data rejections" />
                }
                    .into_any()
            }}
        </section>
    }
    .into_any()
}
