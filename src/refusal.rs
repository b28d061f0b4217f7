//! How the console says no before a request reaches a page or a function:
//! plain text, and, when waiting helps, when to ask again.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

pub fn refusal(status: StatusCode, text: impl Into<String>) -> Response {
    (status, text.into()).into_response()
}

/// 503: no room now; `seconds` later there may be.
pub fn retry_later(text: &'static str, seconds: u32) -> Response {
    let mut response = refusal(StatusCode::SERVICE_UNAVAILABLE, text);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    response
}
