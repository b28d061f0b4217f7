//! A form posted without JavaScript and refused goes back to the page it
//! came from, with the refusal as a signed receipt (not Leptos's `__err`,
//! which anyone could write into a link), for every server function there
//! is or will be. Hydrated pages are answered as before: their dialog shows
//! the refusal itself.

use app::error::ConsoleError;
use app::server::ConsoleContext;
use app::server::audit::Draft;
use app::server_fns::receipts::{Receipt, seal};
use app::urls;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header, request::Parts};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error_status::SERVER_FN_PREFIX;
use crate::router::BODY_LIMIT;

pub async fn return_refusals(
    State(console): State<ConsoleContext>,
    req: Request,
    next: Next,
) -> Response {
    if !req.uri().path().starts_with(SERVER_FN_PREFIX) {
        return next.run(req).await;
    }
    let (parts, body) = req.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, BODY_LIMIT).await else {
        return (
            StatusCode::PAYLOAD_TOO_LARGE,
            "the request body is too large or was cut off",
        )
            .into_response();
    };
    let back = return_path(&parts, &bytes);
    let draft = parts.extensions.get::<Draft>().cloned();
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    match response.extensions().get::<ConsoleError>().cloned() {
        // Leptos redirects a form posted without JavaScript, failed or not.
        Some(error) if response.status().is_redirection() => {
            let label = draft
                .and_then(|d| d.description())
                .unwrap_or_else(|| "Your last action".to_string());
            back_with_refusal(&console, &back, Receipt::refused(label, &error), response)
        }
        _ => response,
    }
}

/// The page a refusal returns to: the form's `back`, else the page that
/// posted it, else the overview. Always a path on this console.
fn return_path(parts: &Parts, body: &[u8]) -> String {
    let fields: Vec<(String, String)> = serde_urlencoded::from_bytes(body).unwrap_or_default();
    let back = fields
        .iter()
        .find(|(k, _)| k == "back")
        .map(|(_, v)| v.as_str());
    if back.is_some() {
        return urls::local_return_path(back, "/");
    }
    let referer = parts
        .headers
        .get(header::REFERER)
        .and_then(|v| v.to_str().ok())
        .and_then(|r| r.split_once("://"))
        .and_then(|(_, rest)| rest.find('/').map(|i| &rest[i..]));
    urls::local_return_path(referer, "/")
}

fn back_with_refusal(
    console: &ConsoleContext,
    back: &str,
    receipt: Receipt,
    mut response: Response,
) -> Response {
    let Ok(sealed) = seal(&console.signer, receipt) else {
        return response;
    };
    let location = urls::with_params(back, &[("receipt", &sealed)]);
    if let Ok(value) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, value);
        *response.status_mut() = StatusCode::SEE_OTHER;
    }
    response
}
