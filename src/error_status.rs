//! Server functions answer every failure with a 500 (or, to a form posted
//! without JavaScript, a redirect with the error as its body); the console's
//! own error type knows better. This layer gives each failed call the status
//! its error stands for (403 read-only, 409 a stale confirmation, 502 an
//! admin API that failed...), for every server function there is or will
//! be, so that a client, a proxy's log or a test can tell a refusal from a
//! fault, and leaves the decoded error with the response for the layers
//! around it (the audit, the return to the page). The body is left as it is.

use app::error::ConsoleError;
use axum::body::Body;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Where Leptos mounts server functions.
pub const SERVER_FN_PREFIX: &str = "/api/";

/// An error is a sentence or two; anything longer is not one of ours.
pub const ERROR_BODY_LIMIT: usize = 64 * 1024;

pub async fn status_by_error(req: Request, next: Next) -> Response {
    let is_server_fn = req.uri().path().starts_with(SERVER_FN_PREFIX);
    let response = next.run(req).await;
    let failed = response.status() == StatusCode::INTERNAL_SERVER_ERROR;
    // A form posted without JavaScript is redirected even when its call
    // failed, with the error as the body (and in `__err`, when there was a
    // page to go back to).
    let redirected = response.status().is_redirection();
    if !is_server_fn || !(failed || redirected) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, ERROR_BODY_LIMIT).await else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    if let Ok(error) = serde_json::from_slice::<ConsoleError>(&bytes) {
        if failed {
            parts.status = StatusCode::from_u16(error.http_status())
                .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        }
        parts.extensions.insert(error);
    }
    Response::from_parts(parts, Body::from(bytes))
}
