//! What the app's own code counts for `/metrics`: each call to an admin
//! API, by cluster, route and outcome, and how long it took. One set per
//! console (not per process), so that consoles sharing a process, as the
//! tests do, count apart.

use std::sync::Arc;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;

use crate::admin_api::AdminApiError;

/// Seconds: an admin API answers a list in milliseconds, a large one or a
/// slow network in a second or more, and gives up at 15.
pub const UPSTREAM_BUCKETS: [f64; 11] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 15.0,
];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct UpstreamCall {
    pub cluster: String,
    /// The route's template (`/api/v1/nodes/{node}/state`), never a name
    /// from a request: the series stay as few as the routes.
    pub path: &'static str,
    pub outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct UpstreamRoute {
    pub cluster: String,
    pub path: &'static str,
}

type HistogramFamily<L> = Family<L, Histogram, fn() -> Histogram>;

fn upstream_histogram() -> Histogram {
    Histogram::new(UPSTREAM_BUCKETS)
}

#[derive(Debug)]
pub struct Meters {
    pub upstream_calls: Family<UpstreamCall, Counter>,
    pub upstream_seconds: HistogramFamily<UpstreamRoute>,
}

impl Default for Meters {
    fn default() -> Self {
        Self {
            upstream_calls: Family::default(),
            upstream_seconds: Family::new_with_constructor(upstream_histogram),
        }
    }
}

/// One cluster's admin API client's share of the meters.
#[derive(Clone, Debug)]
pub struct UpstreamMeter {
    pub meters: Arc<Meters>,
    pub cluster: String,
}

impl UpstreamMeter {
    /// Counts one call to `path` that took `seconds` and ended as `outcome`.
    pub fn observe<T>(&self, path: &'static str, seconds: f64, outcome: &Result<T, AdminApiError>) {
        let outcome = match outcome {
            Ok(_) => "ok",
            Err(AdminApiError::Status { .. }) => "refused",
            Err(AdminApiError::Unreachable { .. }) => "unreachable",
            Err(_) => "malformed",
        };
        self.meters
            .upstream_calls
            .get_or_create(&UpstreamCall {
                cluster: self.cluster.clone(),
                path,
                outcome,
            })
            .inc();
        self.meters
            .upstream_seconds
            .get_or_create(&UpstreamRoute {
                cluster: self.cluster.clone(),
                path,
            })
            .observe(seconds);
    }
}
