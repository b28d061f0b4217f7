//! Every answer the console gives, counted by the kind of request and its
//! status, and timed to its head: the outermost layer, so that a request
//! refused at the door counts too.

use std::time::Instant;

use app::cluster_tag::split_scoped;
use app::server_fns::calls::{Call, SERVER_FN_PREFIX};
use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::Response;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;

/// Seconds: a warm page answers in milliseconds; a render waiting on a
/// slow admin API may take up to its 15 s timeout and more.
const BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0, 15.0,
];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct Answered {
    pub kind: &'static str,
    pub code: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct OfKind {
    pub kind: &'static str,
}

fn histogram() -> Histogram {
    Histogram::new(BUCKETS)
}

#[derive(Clone, Debug)]
pub struct RequestMeters {
    pub answered: Family<Answered, Counter>,
    pub seconds: Family<OfKind, Histogram, fn() -> Histogram>,
}

impl Default for RequestMeters {
    fn default() -> Self {
        Self {
            answered: Family::default(),
            seconds: Family::new_with_constructor(histogram),
        }
    }
}

/// The kind of a request, from its address: a handful of words, never
/// the address itself, so that the series stay few whatever is asked.
pub fn kind_of(path: &str, query: Option<&str>) -> &'static str {
    let path = split_scoped(path).map_or(path, |(_, rest)| rest);
    match path {
        "/healthz" | "/readyz" => "health",
        "/metrics" => "metrics",
        p if p == app::heartbeat::PATH => "stream",
        p if p.starts_with(SERVER_FN_PREFIX) => match Call::of(p) {
            Call::Read => "read",
            Call::Change { .. } => "change",
            _ => "other",
        },
        p if app::table::ExportedTable::at(p).is_some()
            && app::server::exports::Format::of_query(query).is_some() =>
        {
            "export"
        }
        _ => "page",
    }
}

pub async fn count_requests(
    State(meters): State<RequestMeters>,
    req: Request,
    next: Next,
) -> Response {
    let started = Instant::now();
    let mut kind = kind_of(req.uri().path(), req.uri().query());
    let response = next.run(req).await;
    // An embedded file is told by its answer: only files carry an ETag.
    if kind == "page" && response.headers().contains_key(header::ETAG) {
        kind = "asset";
    }
    meters
        .answered
        .get_or_create(&Answered {
            kind,
            code: response.status().as_u16(),
        })
        .inc();
    meters
        .seconds
        .get_or_create(&OfKind { kind })
        .observe(started.elapsed().as_secs_f64());
    response
}
