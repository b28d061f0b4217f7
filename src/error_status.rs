//! Server functions answer every failure with a 500; the console's own error
//! type knows better. This layer gives each failed server function call the
//! status its error stands for (403 read-only, 409 a stale confirmation, 502
//! an admin API that failed...), for every server function there is or will
//! be, so that a client, a proxy's log or a test can tell a refusal from a
//! fault. The body, which the page decodes, is left as it is.

use app::error::ConsoleError;
use axum::body::Body;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Where Leptos mounts server functions.
const SERVER_FN_PREFIX: &str = "/api/";

/// An error is a sentence or two; anything longer is not one of ours.
const ERROR_BODY_LIMIT: usize = 64 * 1024;

pub async fn status_by_error(req: Request, next: Next) -> Response {
    let is_server_fn = req.uri().path().starts_with(SERVER_FN_PREFIX);
    let response = next.run(req).await;
    if !is_server_fn || response.status() != StatusCode::INTERNAL_SERVER_ERROR {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, ERROR_BODY_LIMIT).await else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    if let Ok(error) = serde_json::from_slice::<ConsoleError>(&bytes) {
        parts.status =
            StatusCode::from_u16(error.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    }
    Response::from_parts(parts, Body::from(bytes))
}
