//! `/` when the console shows several clusters: a line per cluster, as
//! last read, and every model not serving anywhere. Each figure links into
//! its cluster's own list.

use leptos::context::Provider;
use leptos::prelude::*;
use leptos_meta::Title;

use crate::components::ClusterBadge;
use crate::format::{self, file_size};
use crate::live::Live;
use crate::server_fns::fleet::{ClusterGlance, FleetReport, fleet_overview};
use crate::urls::{self, ClusterBase};

#[component]
pub fn FleetPage() -> impl IntoView {
    let report = Resource::new(|| (), |()| fleet_overview());
    view! {
        <Title text="Every cluster" />
        <h1>"Every cluster"</h1>
        <Live resource=report render=render_fleet />
    }
}

fn render_fleet(report: FleetReport) -> impl IntoView {
    let FleetReport { clusters } = report;
    let not_serving: usize = clusters
        .iter()
        .filter_map(|c| c.figures.as_ref())
        .map(|f| f.not_serving.len())
        .sum();
    view! {
        <table class="fleet">
            <thead>
                <tr>
                    <th scope="col">"Cluster"</th>
                    <th scope="col">"Read"</th>
                    <th scope="col">"Nodes"</th>
                    <th scope="col">"GPUs free"</th>
                    <th scope="col">"Unhealthy GPUs"</th>
                    <th scope="col">"Models not serving"</th>
                    <th scope="col">"Reclaimable"</th>
                </tr>
            </thead>
            <tbody>
                {clusters
                    .iter()
                    .cloned()
                    .map(|c| view! {
                        <Provider value=ClusterBase(c.tag.base().into())>
                            <GlanceRow glance=c />
                        </Provider>
                    })
                    .collect_view()}
            </tbody>
        </table>
        <h2>{format::count(not_serving, "model not serving", "models not serving")}</h2>
        {(not_serving == 0).then(|| view! { <p class="empty">"Every model of every cluster serves."</p> })}
        <ul class="not-serving">
            {clusters
                .into_iter()
                .filter(|c| c.figures.as_ref().is_some_and(|f| !f.not_serving.is_empty()))
                .map(|c| view! {
                    <Provider value=ClusterBase(c.tag.base().into())>
                        <NotServingOf glance=c />
                    </Provider>
                })
                .collect_view()}
        </ul>
    }
}

/// One cluster's line; its links are that cluster's (it is given the
/// cluster's `ClusterBase`). A cluster that fails keeps its last figures,
/// marked stale, beside the reason.
#[component]
fn GlanceRow(glance: ClusterGlance) -> impl IntoView {
    let read = match glance.age_seconds {
        None => "not read yet".to_string(),
        Some(age) if age < 2 => "just now".to_string(),
        Some(age) => format!("{} ago", format::duration(age as i64)),
    };
    let stale = glance.error.is_some();
    view! {
        <tr class:unreachable=stale data-cluster=glance.tag.id.clone()>
            <th scope="row">
                <a href=urls::scoped("/")><ClusterBadge tag=glance.tag.clone() /></a>
            </th>
            <td>
                {read}
                {glance.error.clone().map(|e| view! { <span class="error">" · unreachable: "{e}</span> })}
            </td>
            {match glance.figures.clone() {
                None => view! { <td colspan="5">"—"</td> }.into_any(),
                Some(f) => view! {
                    <td class:stale=stale>
                        <a href=urls::scoped("/nodes")>{f.nodes}</a>
                        " "
                        <span class="states">
                            {f.nodes_by_state
                                .iter()
                                .map(|(state, n)| format!("{n} {state}"))
                                .collect::<Vec<_>>()
                                .join(", ")}
                        </span>
                        {(f.unreported > 0).then(|| format!(" · {} not reporting", f.unreported))}
                    </td>
                    <td class:stale=stale><a href=urls::scoped("/nodes?sort=gpus&desc=1")>{format!("{} of {}", f.gpu_free, f.gpu_total)}</a></td>
                    <td class:stale=stale class:warn={f.unhealthy_gpus > 0}>
                        <a href=urls::scoped("/nodes?unhealthy=1")>{f.unhealthy_gpus}</a>
                    </td>
                    {
                        let down = f.not_serving.iter().filter(|m| m.down).count();
                        let below = f.not_serving.iter().filter(|m| m.below).count();
                        view! {
                            <td class:stale=stale class:bad={down > 0} class:warn={down == 0 && below > 0}>
                                <a href=urls::scoped("/models")>
                                    {if below == 0 { down.to_string() } else { format!("{down} · {below} below wanted") }}
                                </a>
                            </td>
                        }
                    }
                    <td class:stale=stale><a href=urls::scoped("/weights")>{file_size(f.reclaimable_bytes)}</a></td>
                }
                .into_any(),
            }}
        </tr>
    }
}

/// The models not serving in one cluster, each linking to its explanation
/// there (it is given the cluster's `ClusterBase`).
#[component]
fn NotServingOf(glance: ClusterGlance) -> impl IntoView {
    let lines = glance.figures.map(|f| f.not_serving).unwrap_or_default();
    lines
        .into_iter()
        .map(|n| {
            view! {
                <li class:down=n.down class:below=n.below>
                    <ClusterBadge tag=glance.tag.clone() />
                    " "
                    <a href=urls::placement(&n.model)>{n.model.clone()}</a>
                    {format!(" {}: {}", n.what, n.why)}
                </li>
            }
        })
        .collect_view()
}
