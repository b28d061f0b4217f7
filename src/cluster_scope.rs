//! The router's first step: which cluster a request is about. A cluster's
//! pages, functions and change stream live under `/c/{id}/`; the step
//! takes the cluster from the address, puts it in the request, and hands
//! the rest of the address (`/nodes`) to the routes, which know nothing
//! of clusters. An address that names no cluster but is a cluster's page
//! (a link shared before there were several) goes to the first cluster's.

use std::sync::Arc;

use app::cluster_tag::{PREFIX, split_scoped};
use app::server::audit::clipped;
use app::server::clusters::{Clusters, InCluster};
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
    let path = req.uri().path();
    let query = req
        .uri()
        .query()
        .map(|q| format!("?{q}"))
        .unwrap_or_default();
    if let Some((id, rest)) = split_scoped(path) {
        let Some(cluster) = clusters.get(id) else {
            return no_such_cluster(id, &clusters);
        };
        let rest = if rest.is_empty() { "/" } else { rest };
        let Ok(within) = format!("{rest}{query}").parse::<Uri>() else {
            return refusal(StatusCode::BAD_REQUEST, "the address cannot be read\n");
        };
        req.extensions_mut().insert(InCluster(cluster.clone()));
        // Whatever reads the original address (Leptos's router among them)
        // reads the page within the cluster.
        req.extensions_mut().insert(OriginalUri(within.clone()));
        *req.uri_mut() = within;
        return next.run(req).await;
    }
    let is_read = matches!(*req.method(), Method::GET | Method::HEAD);
    if is_read && belongs_to_a_cluster(path, req.uri().query(), clusters.are_several()) {
        let base = clusters.first().tag.base();
        let to = format!("{base}{path}{query}");
        return moved_to(&to);
    }
    next.run(req).await
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

fn no_such_cluster(id: &str, clusters: &Clusters) -> Response {
    let known: Vec<String> = clusters
        .iter()
        .map(|c| format!("{PREFIX}{}/", c.tag.id))
        .collect();
    refusal(
        StatusCode::NOT_FOUND,
        format!(
            "this console shows no cluster called {:?}; it shows {}\n",
            clipped(&app::urls::decode_component(id), 64),
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
