//! Which cluster a request is about. A cluster's pages, functions and
//! change stream live under `/c/{id}/`; before the address is routed, this
//! takes the cluster from it, puts it in the request, and hands the rest
//! of the address (`/nodes`) to the routes, which know nothing of
//! clusters. It decides nothing: the pipeline, after its checks of the
//! request's name, answers an id no cluster has, and sends an address that
//! names no cluster but is a cluster's page (a link shared before there
//! were several) to the first cluster's.

use std::sync::Arc;

use app::cluster_tag::{PREFIX, split_scoped};
use app::server::audit::clipped;
use app::server::clusters::{Clusters, InCluster};
use app::urls::decode_component;
use axum::extract::{OriginalUri, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::Response;

use crate::refusal::refusal;

pub async fn cluster_scope(
    State(clusters): State<Arc<Clusters>>,
    mut req: Request,
    next: Next,
) -> Response {
    let path = req.uri().path().to_string();
    let query = req
        .uri()
        .query()
        .map(|q| format!("?{q}"))
        .unwrap_or_default();
    if let Some((id, rest)) = split_scoped(&path) {
        let rest = if rest.is_empty() { "/" } else { rest };
        let Ok(within) = format!("{rest}{query}").parse::<Uri>() else {
            return refusal(StatusCode::BAD_REQUEST, "the address cannot be read\n");
        };
        match clusters.get(id) {
            Some(cluster) => {
                req.extensions_mut().insert(InCluster(cluster.clone()));
            }
            None => {
                let id = clipped(&decode_component(id), 64);
                req.extensions_mut().insert(UnknownCluster(id));
            }
        }
        // Whatever reads the original address (Leptos's router among them)
        // reads the page within the cluster.
        req.extensions_mut().insert(OriginalUri(within.clone()));
        *req.uri_mut() = within;
    }
    next.run(req).await
}

pub use app::server::clusters::UnknownCluster;

/// Where a page of a cluster this console does not show is rendered: no
/// route has this path, so the app's own not-found page answers, in its
/// layout, listing the clusters there are.
pub const NO_SUCH_CLUSTER_PAGE: &str = "/.no-such-cluster";

/// Makes `parts` the console's not-found page about `UnknownCluster`.
pub fn to_not_found_page(parts: &mut axum::http::request::Parts) {
    if let Ok(page) = NO_SUCH_CLUSTER_PAGE.parse::<Uri>() {
        parts.extensions.insert(OriginalUri(page.clone()));
        parts.uri = page;
    }
}

/// Where a read of an address that names no cluster goes, when it is a
/// cluster's page: the first cluster's page.
pub fn moved_here(method: &Method, uri: &Uri, clusters: &Clusters) -> Option<Response> {
    let is_read = matches!(*method, Method::GET | Method::HEAD);
    let path = uri.path();
    let listed = uri
        .query()
        .is_some_and(|q| q.split('&').any(|p| p.starts_with("clusters=")));
    if is_read && path == "/wall" && clusters.are_several() && !listed {
        // The wall of a console of several is every cluster's, side by side.
        let every: Vec<&str> = clusters.iter().map(|c| c.tag.id.as_str()).collect();
        let rest = uri.query().map(|q| format!("&{q}")).unwrap_or_default();
        return Some(moved_to(&format!(
            "/wall?clusters={}{rest}",
            every.join(",")
        )));
    }
    (is_read && belongs_to_a_cluster(path, uri.query(), clusters.are_several())).then(|| {
        let query = uri.query().map(|q| format!("?{q}")).unwrap_or_default();
        moved_to(&format!("{}{path}{query}", clusters.first().tag.base()))
    })
}

/// A page of one cluster, addressed as before there were several: every
/// page but the overview of several (`/` when there are), the wall of
/// several (`/wall?clusters=`), and what is not a page at all (files,
/// functions, the change stream, health).
fn belongs_to_a_cluster(path: &str, query: Option<&str>, several: bool) -> bool {
    let under = |page: &str| path == page || path.starts_with(&format!("{page}/"));
    match path {
        "/" => !several,
        "/wall" => !query.is_some_and(|q| q.split('&').any(|p| p.starts_with("clusters="))),
        _ => [
            "/nodes",
            "/models",
            "/replicas",
            "/weights",
            "/events",
            "/audit",
            "/wall",
        ]
        .into_iter()
        .any(under),
    }
}

fn moved_to(to: &str) -> Response {
    let mut response = refusal(StatusCode::TEMPORARY_REDIRECT, "");
    if let Ok(value) = HeaderValue::from_str(to) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}

pub fn no_such_cluster(id: &str, clusters: &Clusters) -> Response {
    let known: Vec<String> = clusters
        .iter()
        .map(|c| format!("{PREFIX}{}/", c.tag.id))
        .collect();
    refusal(
        StatusCode::NOT_FOUND,
        format!(
            "this console shows no cluster called {id:?}; it shows {}\n",
            known.join(", ")
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_shared_before_clusters_go_to_the_first() {
        for page in [
            "/nodes",
            "/nodes/gpu-1",
            "/models/a%2Fb/placement",
            "/wall/setup",
            "/audit",
        ] {
            assert!(belongs_to_a_cluster(page, None, true), "{page}");
        }
        assert!(belongs_to_a_cluster("/wall", Some("panels=models"), true));
        assert!(!belongs_to_a_cluster("/wall", Some("clusters=eu,us"), true));
        assert!(belongs_to_a_cluster("/", None, false));
        assert!(!belongs_to_a_cluster("/", None, true));
        for other in [
            "/api/list_nodes",
            "/updates",
            "/pkg/x.js",
            "/healthz",
            "/nodesx",
            "/theme/dark",
        ] {
            assert!(!belongs_to_a_cluster(other, None, true), "{other}");
        }
    }
}
