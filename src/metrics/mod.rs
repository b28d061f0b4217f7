//! `/metrics`: the console's own health and each cluster's figures for
//! Prometheus. What code counts as it runs (answers, admin API calls) is
//! kept in the client crate's families; what is read at each scrape
//! (figures, ages, turns, streams, the audit's counts) is the collector's.
//! A scrape asks no admin API anything itself: it counts as someone
//! looking at every cluster, whose lists are then read at most once a
//! period, as for any page.

mod collector;
mod figures;
pub mod requests;
pub mod text_format;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use app::server::ConsoleContext;
use app::server::clusters::Clusters;
use axum::Extension;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use prometheus_client::registry::Registry;

use crate::allowed_hosts::AllowedHosts;
use crate::connections::PeerStreams;
use crate::refusal::refusal;
use crate::turns::{Kind, Turns};
use collector::ConsoleCollector;
use requests::RequestMeters;

/// What a scrape reads.
#[derive(Clone)]
pub struct Metrics {
    registry: Arc<Registry>,
    clusters: Arc<Clusters>,
    hosts: AllowedHosts,
    /// The pages' turns: a scrape is made within one.
    turns: Turns,
}

impl Metrics {
    pub fn new(
        console: &ConsoleContext,
        requests: &RequestMeters,
        turns: &Turns,
        streams: &PeerStreams,
        hosts: AllowedHosts,
    ) -> Self {
        let mut registry = Registry::default();
        registry.register(
            "llmgw_console_requests",
            "Answers given, by kind of request and status",
            requests.answered.clone(),
        );
        registry.register(
            "llmgw_console_request_duration_seconds",
            "Time from a request's arrival to its answer's head, by kind of request",
            requests.seconds.clone(),
        );
        registry.register(
            "llmgw_console_upstream_requests",
            "Calls to each cluster's admin API, by route and outcome",
            console.meters.upstream_calls.clone(),
        );
        registry.register(
            "llmgw_console_upstream_request_duration_seconds",
            "Time each call to an admin API took, by route",
            console.meters.upstream_seconds.clone(),
        );
        registry.register_collector(Box::new(ConsoleCollector {
            clusters: console.clusters.clone(),
            audit: console.audit.clone(),
            journal: console.journal.clone(),
            turns: turns.clone(),
            streams: streams.clone(),
            build: (
                env!("CARGO_PKG_VERSION").to_string(),
                console.ui.build.clone(),
            ),
            per_node: console.metrics_per_node,
        }));
        Self {
            registry: Arc::new(registry),
            clusters: console.clusters.clone(),
            hosts,
            turns: turns.clone(),
        }
    }
}

/// The answer to `GET /metrics`.
pub async fn scrape(
    State(metrics): State<Metrics>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    // Prometheus scrapes by address; a name must be one the console is
    // known by, as for every page: a hostile site's name pointed at the
    // console (DNS rebinding) would let its pages read the figures. Over
    // HTTP/2 the name comes in the address, not in `Host`.
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .or_else(|| uri.authority().map(|a| a.as_str()))
        .unwrap_or_default();
    if !is_address(host) && !metrics.hosts.allows(host) {
        return refusal(
            StatusCode::MISDIRECTED_REQUEST,
            "this console does not answer to that name; scrape it by address, or start it with --allowed-host\n",
        );
    }
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    // Within a turn and the bytes waiting to be sent, as a page: a crowd
    // of slow scrapers cannot hold more than pages could.
    let sender = peer.map(|Extension(ConnectInfo(addr))| addr.ip().to_canonical().to_string());
    let turns = metrics.turns.clone();
    turns
        .run(Kind::Render, sender, async move {
            written(&metrics, accept.as_deref())
        })
        .await
}

/// The scrape's text, in the format `accept` asks for.
fn written(metrics: &Metrics, accept: Option<&str>) -> Response {
    for cluster in metrics.clusters.iter() {
        cluster.read_behind();
    }
    let mut text = String::new();
    if let Err(e) = prometheus_client::encoding::text::encode(&mut text, &metrics.registry) {
        tracing::error!("the metrics could not be written: {e}");
        return refusal(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the metrics could not be written; the console's log says why\n",
        );
    }
    let (body, kind) = if text_format::wants_openmetrics(accept) {
        (text, text_format::OPENMETRICS)
    } else {
        (text_format::classic(&text), text_format::CLASSIC)
    };
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(kind)),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        body,
    )
        .into_response()
}

/// `Host: 10.0.0.5:8080`, `[::1]:8080`: an address, which no rebinding
/// can send (a browser sends the name it resolved).
fn is_address(host: &str) -> bool {
    let bare = match host.rsplit_once(':') {
        Some((h, port)) if port.bytes().all(|b| b.is_ascii_digit()) => h,
        _ => host,
    };
    let bare = bare.trim_start_matches('[').trim_end_matches(']');
    bare.parse::<IpAddr>().is_ok()
}
