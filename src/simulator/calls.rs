//! How many times each admin API path was asked for, so that a benchmark
//! (or a test) can see what the console costs the admin API:
//! `GET /_simulator/calls` answers `{"/api/v1/nodes": 3, ...}`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;

use super::Simulator;

#[derive(Clone, Debug, Default)]
pub struct Calls(Arc<Mutex<BTreeMap<String, u64>>>);

impl Calls {
    pub fn counts(&self) -> BTreeMap<String, u64> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn count(&self, path: &str) {
        let mut counts = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        // Paths of the contract only: made-up ones must not grow the map.
        let key = if path.starts_with("/api/v1/nodes/") {
            "/api/v1/nodes/{id}/state"
        } else {
            path
        };
        if key.starts_with("/api/v1/") && key.len() < 64 {
            *counts.entry(key.to_string()).or_default() += 1;
        }
    }
}

pub async fn count(State(sim): State<Simulator>, req: Request, next: Next) -> Response {
    sim.calls().count(req.uri().path());
    next.run(req).await
}
