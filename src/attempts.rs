//! Every attempt at a change, whatever server function it calls (one added
//! later included): recorded in the audit with who made it, what it was
//! about and how it ended. Only the functions listed as reads in
//! `app::server_fns` are left alone; forgetting to list a new read audits
//! it, never the reverse. A call of a function this build does not have
//! is no attempt at anything: a tab of an older build still calls a read
//! that was since removed, and each record moves the change feed, which
//! would make that tab read, and call it, again every period.

use std::collections::{BTreeMap, HashSet};
use std::sync::LazyLock;

use app::error::ConsoleError;
use app::server::ConsoleContext;
use app::server::audit::{AuditRecord, Draft, Outcome, rfc3339};
use app::server::context::identity_of;
use app::server::signing::unix_now;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error_status::{ERROR_BODY_LIMIT, SERVER_FN_PREFIX};
use crate::router::BODY_LIMIT;

/// A refusal's own words are short; the rest of a long body is not.
const REASON_LIMIT: usize = 512;

/// The paths of this build's server functions, every one of them: they
/// register themselves, so one added later is in without being listed.
static SERVER_FNS: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    leptos::server_fn::axum::server_fn_paths()
        .map(|(path, _)| path)
        .collect()
});

pub async fn audit_attempts(
    State(console): State<ConsoleContext>,
    req: Request,
    next: Next,
) -> Response {
    let path = req.uri().path();
    let action = match path.strip_prefix(SERVER_FN_PREFIX) {
        Some(name) if !app::server_fns::is_read(name) && SERVER_FNS.contains(path) => {
            name.to_string()
        }
        _ => return next.run(req).await,
    };
    let (mut parts, body) = req.into_parts();
    // A call this layer cannot read is refused, and recorded.
    let who = identity_of(
        Some(&parts),
        console.actor_header.as_ref(),
        &console.trusted_proxies,
    );
    let record = |target, outcome, reason| AuditRecord {
        time: rfc3339(unix_now()),
        actor: who.actor().to_string(),
        user: who.user.as_ref().map(ToString::to_string),
        peer: who.peer.map(|ip| ip.to_string()),
        action: action.clone(),
        target,
        outcome,
        reason,
    };
    let Ok(bytes) = axum::body::to_bytes(body, BODY_LIMIT).await else {
        let reason = "the request body is too large or was cut off";
        console.audit.write(record(
            BTreeMap::new(),
            Outcome::Refused,
            Some(reason.into()),
        ));
        return (StatusCode::PAYLOAD_TOO_LARGE, reason).into_response();
    };
    let fields = form_fields(&bytes);
    let draft = Draft::default();
    parts.extensions.insert(draft.clone());
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    let (outcome, reason, response) = outcome(&draft, response).await;
    let mut target: BTreeMap<String, serde_json::Value> = fields
        .into_iter()
        .map(|(k, v)| (k, serde_json::Value::String(v)))
        .collect();
    target.extend(draft.take_target());
    console.audit.write(record(target, outcome, reason));
    response
}

/// The request's form fields (what every page's form and server function
/// call sends), a confirmation token shortened: the record says one was
/// sent, not what it was.
fn form_fields(body: &Bytes) -> Vec<(String, String)> {
    let fields: Vec<(String, String)> = serde_urlencoded::from_bytes(body).unwrap_or_default();
    fields
        .into_iter()
        .map(|(k, v)| {
            if k == "token" && v.len() > 12 {
                let short: String = v.chars().take(12).collect();
                (k, format!("{short}…"))
            } else {
                (k, v)
            }
        })
        .collect()
}

/// How the attempt ended: the error the call answered with, else what the
/// handler recorded from the admin API's answer, else the status.
async fn outcome(draft: &Draft, response: Response) -> (Outcome, Option<String>, Response) {
    if let Some(error) = response.extensions().get::<ConsoleError>() {
        let outcome = match error {
            ConsoleError::AdminApi(_) | ConsoleError::Internal(_) | ConsoleError::Transport(_) => {
                Outcome::Failed
            }
            _ => Outcome::Refused,
        };
        return (outcome, Some(error.to_string()), response);
    }
    if let Some((outcome, reason)) = draft.recorded_outcome() {
        return (outcome, reason, response);
    }
    let status = response.status();
    if status.is_success() || status.is_redirection() {
        return (Outcome::Done, None, response);
    }
    let outcome = if status.is_client_error() {
        Outcome::Refused
    } else {
        Outcome::Failed
    };
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, ERROR_BODY_LIMIT)
        .await
        .unwrap_or_default();
    let text: String = String::from_utf8_lossy(&bytes)
        .trim()
        .chars()
        .take(REASON_LIMIT)
        .collect();
    let reason = if text.is_empty() {
        status.to_string()
    } else {
        text
    };
    (
        outcome,
        Some(reason),
        Response::from_parts(parts, Body::from(bytes)),
    )
}
