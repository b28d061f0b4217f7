//! Which cluster a page is about, on every page: its label in its colour,
//! and the same kind of page in each other cluster. Switching keeps the
//! kind of page (nodes stay nodes) and never the object: a node called
//! `gpu-01` in one cluster is not the `gpu-01` of another.

use leptos::prelude::*;

use crate::cluster_tag::ClusterTag;

/// A cluster's label in its colour.
#[component]
pub fn ClusterBadge(tag: ClusterTag) -> impl IntoView {
    let style = tag
        .colour
        .as_ref()
        .map(|c| format!("--cluster-colour: {c}"));
    view! {
        <span class="cluster-badge" style=style title=format!("Cluster {} (/c/{}/)", tag.label, tag.id)>
            {tag.label.clone()}
        </span>
    }
}

/// The other clusters' page of the same kind as `here` (a path within the
/// cluster), for the header; nothing when there is one cluster. A menu
/// that opens without JavaScript (`<details>`), so that a dozen clusters
/// take one word of the header, which must fit a laptop: it says the
/// admin API this cluster reads too, which would not fit beside it.
#[component]
pub fn ClusterSwitch(
    current: ClusterTag,
    clusters: Vec<ClusterTag>,
    here: String,
    admin_api: String,
) -> impl IntoView {
    let kind = kind_of(&here);
    let others: Vec<ClusterTag> = clusters
        .into_iter()
        .filter(|c| c.id != current.id)
        .collect();
    (!others.is_empty()).then(|| {
        view! {
            <details class="cluster-menu">
                <summary title="The same page in another cluster">"Switch cluster"</summary>
                <div class="menu">
                    <p class="upstream-in-menu">
                        {current.label.clone()}" reads "<code>{admin_api}</code>
                    </p>
                    <nav class="cluster-switch" aria-label="Clusters">
                        <a href="/" title="Every cluster at a glance">"All clusters"</a>
                        {others
                            .into_iter()
                            .map(|c| {
                                let href = format!("{}{kind}", c.base());
                                view! { <a href=href>{c.label.clone()}</a> }
                            })
                            .collect_view()}
                    </nav>
                </div>
            </details>
        }
    })
}

/// The same object in the other clusters that list it: `path` is its
/// address within a cluster (`/nodes/gpu-01`).
#[component]
pub fn AlsoIn(tags: Vec<ClusterTag>, path: String) -> impl IntoView {
    (!tags.is_empty()).then(|| {
        view! {
            <nav class="cluster-switch also-in" aria-label="The same name in other clusters">
                "Also in: "
                {tags
                    .into_iter()
                    .map(|c| {
                        let href = format!("{}{path}", c.base());
                        view! { <a href=href><ClusterBadge tag=c /></a> " " }
                    })
                    .collect_view()}
            </nav>
        }
    })
}

/// The kind of page at `here` (a path and query within a cluster): its
/// list, without the object or the filter. A wall keeps its layout.
pub fn kind_of(here: &str) -> String {
    let (path, query) = here.split_once('?').unwrap_or((here, ""));
    let first = path.trim_start_matches('/').split('/').next().unwrap_or("");
    match first {
        "nodes" | "models" | "replicas" | "weights" | "audit" => format!("/{first}"),
        "wall" if path == "/wall/setup" => "/wall/setup".into(),
        "wall" => crate::urls::path_and_query("/wall", &keep_layout(query)),
        _ => "/".into(),
    }
}

fn keep_layout(query: &str) -> String {
    query
        .split('&')
        .filter(|p| p.starts_with("panels=") || p.starts_with("cycle="))
        .collect::<Vec<_>>()
        .join("&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switching_keeps_the_kind_of_page_never_the_object() {
        assert_eq!(kind_of("/nodes/gpu-01"), "/nodes");
        assert_eq!(kind_of("/nodes?state=ready"), "/nodes");
        assert_eq!(kind_of("/models/a%2Fb/placement?group=node"), "/models");
        assert_eq!(kind_of("/replicas?model=x"), "/replicas");
        assert_eq!(
            kind_of("/wall?panels=models,nodes&cycle=30&x=1"),
            "/wall?panels=models,nodes&cycle=30"
        );
        assert_eq!(kind_of("/wall/setup?panels=models"), "/wall/setup");
        assert_eq!(kind_of("/"), "/");
        assert_eq!(kind_of("/nowhere"), "/");
    }
}
