//! `/`: the cluster at a glance. Every figure links to the list behind it.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::admin_api::types::NodeState;
use crate::components::{NodeActionDialog, ReceiptBanner, StatusBadge};
use crate::format::{self, ModelStatus, file_size};
use crate::live::Live;
use crate::server_fns::cluster::{OverviewReport, cluster_overview};
use crate::table::{TableQuery, use_table_query};
use crate::tables::NodesTable;
use crate::urls;

#[component]
pub fn OverviewPage() -> impl IntoView {
    let query = use_table_query();
    let snapshot = Resource::new(move || query.with(TableQuery::to_query), cluster_overview);
    view! {
        <Title text=crate::site_map::OVERVIEW.title />
        <h1>"Cluster overview"</h1>
        <ReceiptBanner />
        <NodeActionDialog />
        <Live resource=snapshot render=move |report| render_overview(report, query) />
    }
}

/// The last hour's newest changes: between the figures and the table of
/// every node, where the eye goes first after the figures.
fn last_hour() -> AnyView {
    view! {
        <crate::components::History
            title="What changed in the last hour"
            query=crate::events_query::EventQuery {
                since: Some("1h".into()),
                limit: Some(10),
                ..Default::default()
            }
        />
    }
    .into_any()
}

fn render_overview(report: OverviewReport, query: Memo<TableQuery>) -> impl IntoView {
    let OverviewReport { figures, nodes } = report;
    let (n, m, r, o) = (
        figures.nodes,
        figures.models,
        figures.replicas,
        figures.orphans,
    );
    view! {
        <div class="cards">
            <section class="card">
                <h2><a href=urls::scoped("/nodes")>{format::count(n.nodes, "node", "nodes")}</a></h2>
                <ul>
                    {n.by_state
                        .iter()
                        .map(|(state, count)| {
                            let label = match state {
                                NodeState::NotReported => "with no state reported",
                                known => known.as_str(),
                            };
                            view! {
                                <li><a href=urls::nodes_in_state(state)>{format!("{count} {label}")}</a></li>
                            }
                        })
                        .collect_view()}
                </ul>
            </section>
            <section class="card">
                <h2><a href=urls::scoped("/nodes?sort=gpus&desc=1")>{format!("{} of {} GPUs free", n.gpu_free, n.gpu_total)}</a></h2>
                <p>
                    <a href=urls::scoped("/nodes?unhealthy=1") class:warn={n.unhealthy_gpus > 0}>
                        {format!("{} unhealthy, on {}", n.unhealthy_gpus, format::count(n.with_unhealthy, "node", "nodes"))}
                    </a>
                </p>
            </section>
            <section class="card">
                <h2><a href=urls::scoped("/models")>{format::count(m.models, "model", "models")}</a></h2>
                <ul>
                    {ModelStatus::ALL
                        .into_iter()
                        .map(|s| {
                            view! {
                                <li>
                                    <a href=urls::models_with_status(s)>
                                        {m.with_status(s)} " " <StatusBadge status=s />
                                    </a>
                                </li>
                            }
                        })
                        .collect_view()}
                </ul>
                <p class="serving">
                    <span class:bad={m.down > 0}>{format!("{} not serving", m.down)}</span>
                    " · "
                    <span class:warn={m.below_wanted > 0}>{format!("{} below wanted", m.below_wanted)}</span>
                </p>
            </section>
            <section class="card">
                <h2><a href=urls::scoped("/replicas")>{format::count(r.replicas, "replica", "replicas")}</a></h2>
                <p>
                    <a href=urls::scoped("/replicas?errors=1") class:warn={r.with_errors > 0}>
                        {format!("{} with errors", r.with_errors)}
                    </a>
                </p>
            </section>
            <section class="card">
                <h2><a href=urls::scoped("/weights")>{format!("{} reclaimable", file_size(o.reclaimable_bytes))}</a></h2>
                <p>
                    <a href=urls::scoped("/weights")>
                        {format!("{} on {}", format::count(o.files, "orphaned file", "orphaned files"), format::count(o.nodes, "node", "nodes"))}
                    </a>
                </p>
            </section>
        </div>
        {last_hour()}
        <h2>"Nodes"</h2>
        <NodesTable page=nodes query />
    }
}
