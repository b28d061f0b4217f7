//! The simulated admin API over HTTP: the seven endpoints of the contract, the
//! `{"error": ...}` envelope, and the 400/404 answers a real server gives;
//! and the simulator's own switches under `/_simulator/`.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use app::admin_api::types::{CollectRequest, ErrorBody, NodeStateRequest};
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};

use super::calls;
use super::faults::{self, FaultRequest};
use super::{SimError, Simulator};

pub fn router(sim: Simulator) -> Router {
    Router::new()
        .route("/api/v1/nodes", get(nodes))
        .route("/api/v1/nodes/{id}/state", post(set_node_state))
        .route("/api/v1/models", get(models))
        .route("/api/v1/replicas", get(replicas))
        .route("/api/v1/explain-placement", get(explain))
        .route("/api/v1/weights/orphans", get(orphans))
        .route("/api/v1/weights/collect", post(collect))
        // The simulator's own, outside the admin API's paths: back to the
        // starting cluster, for tests that must not depend on each other.
        .route(
            "/_simulator/reset",
            post(|State(sim): State<Simulator>| async move {
                sim.reset();
                StatusCode::NO_CONTENT
            }),
        )
        .route(
            "/_simulator/fault",
            post(
                |State(sim): State<Simulator>, Json(request): Json<FaultRequest>| async move {
                    if let Some(delay) = request.delay_seconds {
                        sim.faults().set_delay(Duration::from_secs(delay));
                    }
                    sim.faults()
                        .set(request.fault, request.for_seconds.map(Duration::from_secs));
                    sim.faults().only(request.only);
                    StatusCode::NO_CONTENT
                },
            ),
        )
        // What an operator's `llmgw ctl` edit of the catalog would do: a
        // model asks for more replicas than run, and stops serving.
        .route(
            "/_simulator/minimum",
            post(
                |State(sim): State<Simulator>, Json(request): Json<MinimumRequest>| async move {
                    let mut cluster = sim.cluster();
                    match cluster.models.iter_mut().find(|m| m.name == request.model) {
                        Some(model) => {
                            model.min = request.min;
                            StatusCode::NO_CONTENT.into_response()
                        }
                        None => error(StatusCode::NOT_FOUND, format!("no model {}", request.model)),
                    }
                },
            ),
        )
        // What a node's agent reports when a GPU fails (or is fixed): its
        // line in the node's unhealthy list, added or taken away.
        .route(
            "/_simulator/gpu",
            post(
                |State(sim): State<Simulator>, Json(request): Json<GpuRequest>| async move {
                    let mut cluster = sim.cluster();
                    let Some(node) = cluster.nodes.iter_mut().find(|n| n.id == request.node) else {
                        return error(StatusCode::NOT_FOUND, format!("no node {}", request.node));
                    };
                    node.unhealthy.retain(|line| *line != request.line);
                    if !request.healthy {
                        node.unhealthy.push(request.line);
                    }
                    StatusCode::NO_CONTENT.into_response()
                },
            ),
        )
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such endpoint".into()) })
        .route(
            "/_simulator/calls",
            get(|State(sim): State<Simulator>| async move { Json(sim.calls().counts()) }),
        )
        .layer(axum::middleware::from_fn_with_state(
            sim.clone(),
            faults::apply,
        ))
        .layer(axum::middleware::from_fn_with_state(
            sim.clone(),
            calls::count,
        ))
        .with_state(sim)
}

#[derive(serde::Deserialize)]
struct MinimumRequest {
    model: String,
    min: i64,
}

#[derive(serde::Deserialize)]
struct GpuRequest {
    node: String,
    /// The GPU as llmgw describes it ("gpu 3: XID 79").
    line: String,
    #[serde(default)]
    healthy: bool,
}

fn error(status: StatusCode, message: String) -> Response {
    (status, Json(ErrorBody { error: message })).into_response()
}

impl IntoResponse for SimError {
    fn into_response(self) -> Response {
        let status = match self {
            SimError::NotFound(_) => StatusCode::NOT_FOUND,
            SimError::BadRequest(_) => StatusCode::BAD_REQUEST,
        };
        error(status, self.to_string())
    }
}

/// The real server stores the actor beside what changes; a change without
/// one is refused, so a console that forgets the header fails loudly here.
fn actor(headers: &HeaderMap) -> Result<String, SimError> {
    headers
        .get("x-llmgw-actor")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_string)
        .ok_or_else(|| SimError::BadRequest("X-Llmgw-Actor header is required".into()))
}

type Params = Result<Query<HashMap<String, String>>, QueryRejection>;

fn param(params: Params, name: &str) -> Result<Option<String>, SimError> {
    let Query(map) = params.map_err(|e| SimError::BadRequest(e.body_text()))?;
    Ok(map.get(name).cloned())
}

async fn nodes(State(sim): State<Simulator>) -> Response {
    Json(sim.cluster().list_nodes(Instant::now())).into_response()
}

async fn models(State(sim): State<Simulator>) -> Response {
    Json(sim.cluster().list_models(Instant::now())).into_response()
}

async fn replicas(State(sim): State<Simulator>, params: Params) -> Result<Response, SimError> {
    let model = param(params, "model")?.filter(|m| !m.is_empty());
    Ok(Json(
        sim.cluster()
            .list_replicas(Instant::now(), model.as_deref()),
    )
    .into_response())
}

async fn explain(State(sim): State<Simulator>, params: Params) -> Result<Response, SimError> {
    let model = param(params, "model")?.unwrap_or_default();
    Ok(Json(sim.cluster().explain(Instant::now(), &model)?).into_response())
}

async fn orphans(State(sim): State<Simulator>) -> Response {
    Json(sim.cluster().list_orphans(Instant::now())).into_response()
}

async fn set_node_state(
    State(sim): State<Simulator>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<Json<NodeStateRequest>, JsonRejection>,
) -> Result<Response, SimError> {
    let Json(request) = body.map_err(|e| {
        SimError::BadRequest(format!(
            "body must be {{\"state\": \"cordoned\" | \"ready\" | \"draining\"}}: {}",
            e.body_text()
        ))
    })?;
    let actor = actor(&headers)?;
    let change = sim
        .cluster()
        .set_node_state(Instant::now(), &actor, &id, request.state)?;
    Ok(Json(change).into_response())
}

async fn collect(
    State(sim): State<Simulator>,
    headers: HeaderMap,
    body: Result<Json<CollectRequest>, JsonRejection>,
) -> Result<Response, SimError> {
    let Json(request) = body.map_err(|e| {
        SimError::BadRequest(format!(
            "body must be {{\"node\": \"<id>\"}}: {}",
            e.body_text()
        ))
    })?;
    let actor = actor(&headers)?;
    let results = sim
        .cluster()
        .collect(Instant::now(), &actor, &request.node)?;
    Ok(Json(results).into_response())
}
