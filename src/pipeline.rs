//! The one request pipeline: what every request the console answers goes
//! through, in this order, read top to bottom in [`pipeline`]. It wraps the
//! whole router, so a page or a server function added tomorrow passes every
//! step without anyone adding a line.
//!
//! 1. A name the console does not answer to is refused (DNS rebinding).
//! 2. Embedded files are served; nothing else about them needs checking.
//!    An address of a cluster this console does not show is answered; a
//!    page of one cluster addressed without it goes to the first's.
//! 3. The change stream is capped per peer.
//! 4. A proxy's user header sent twice, or naming a list, is refused:
//!    which one names the user?
//! 5. Another site may not ask for anything but a read.
//! 6. A change comes as a POST.
//! 7. The body is read once, bounded in size and in time.
//! 8. A change's audit record is opened with the fields its function takes.
//! 9. The answer is made within a turn, in a task of its own that runs to
//!    its end when the client leaves and closes the audit record.
//!
//! Every refusal of an attempt at a change before it reached its function
//! is audited without its body, counted rather than repeated.

use std::net::{IpAddr, SocketAddr};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use app::error::ConsoleError;
use app::server::ConsoleContext;
use app::server::audit::{
    AuditLog, AuditRecord, Draft, Outcome, REASON_LIMIT, blank_record, clipped,
};
use app::server::clusters::InCluster;
use app::server::context::identity_of;
use app::server_fns::calls::{Call, SERVER_FN_PREFIX, for_the_record};
use app::server_fns::receipts::{Receipt, seal};
use app::urls;
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, Uri, header, request::Parts};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::FutureExt;

use crate::allowed_hosts::AllowedHosts;
use crate::cluster_scope::{UnknownCluster, moved_here, no_such_cluster, to_not_found_page};
use crate::connections::{HeldStream, PeerStreams, StreamSlot};
use crate::cross_origin;
use crate::places::network_of;
use crate::refusal::{refusal, retry_later};
use crate::turns::{Kind, Turns};

/// Server function calls carry a few names at most; anything larger is not
/// from this console's pages.
pub const BODY_LIMIT: usize = 64 * 1024;

/// A body of that size arrives in well under this on any network an
/// operator uses; a client that trickles it holds a connection for nothing.
pub const BODY_TIME: Duration = Duration::from_secs(10);

/// An error is a sentence or two; anything longer is not one of ours.
const ERROR_BODY_LIMIT: usize = 64 * 1024;

/// What every request shares on its way through.
#[derive(Clone)]
pub struct Pipeline {
    pub console: ConsoleContext,
    pub hosts: AllowedHosts,
    /// The turns of requests about no one cluster.
    pub turns: Turns,
    /// Each cluster's own turns, by id.
    pub cluster_turns: Arc<std::collections::HashMap<String, Turns>>,
    pub streams: PeerStreams,
}

pub async fn pipeline(State(p): State<Pipeline>, req: Request, next: Next) -> Response {
    let call = Call::of(req.uri().path());
    let (mut parts, body) = req.into_parts();
    // Everything below is about the cluster the address named: what it
    // signs, and what its records say.
    let p = Pipeline {
        console: p.console.for_request(parts.extensions.get::<InCluster>()),
        ..p
    };
    // 1. The names this console is known by.
    let host = host_of(&parts);
    if !p.hosts.allows(&host) {
        // The name goes with the record, not into its reason: refusals
        // are counted by their reason, and a flood under a new name each
        // time must not be a new record each time.
        let why = "it was sent for a name this console does not answer to";
        p.refused_early_about(&parts, &call, why, Some(("host", clipped(&host, 100))));
        return refusal(
            StatusCode::MISDIRECTED_REQUEST,
            format!(
                "this console does not answer to {:?}; start it with --allowed-host to allow that name\n",
                clipped(&host, 200)
            ),
        );
    }
    // 2. Files: fixed bytes, the same for everyone.
    if let Some(file) = crate::assets::respond(&parts.method, parts.uri.path(), &parts.headers) {
        return file;
    }
    // The cluster the address names, if it names one.
    if let Some(UnknownCluster(id)) = parts.extensions.get::<UnknownCluster>() {
        if matches!(call, Call::Change { .. }) {
            p.refused_early(
                &parts,
                &call,
                "it names a cluster this console does not show",
            );
        }
        // A page gets the console's own not-found page; anything else a
        // sentence.
        let read = matches!(
            parts.method,
            axum::http::Method::GET | axum::http::Method::HEAD
        );
        if !read || !matches!(call, Call::Page) {
            return no_such_cluster(id, &p.console.clusters);
        }
        to_not_found_page(&mut parts);
    }
    if p.console.ui.cluster.is_none()
        && let Some(moved) = moved_here(&parts.method, &parts.uri, &p.console.clusters)
    {
        return moved;
    }
    // 3. Open pages' change streams: a few per peer, each a connection held.
    if parts.uri.path() == app::heartbeat::PATH {
        let crowded = p.streams.crowded();
        let (network, holder) = p.stream_holder_of(&parts);
        let Some(place) = p.streams.take(network, holder) else {
            return too_many_streams();
        };
        parts
            .extensions
            .insert(StreamSlot::new(HeldStream { place, crowded }));
        return next.run(Request::from_parts(parts, body)).await;
    }
    // 4. One user header, or none, naming one user: a proxy that appends
    // to the header may join the client's own name with a comma.
    if let Some(header) = &p.console.actor_header
        && app::server::context::names_several(&parts.headers, header)
    {
        let why = format!(
            "it names more than one user ({header}); the proxy must replace the header, not add to it"
        );
        p.refused_early(&parts, &call, &why);
        return refusal(StatusCode::BAD_REQUEST, format!("refused: {why}\n"));
    }
    // 5. Another site may read, and nothing more.
    if let Err(why) = cross_origin::check(&parts.method, &parts.headers) {
        p.refused_early(&parts, &call, &why.to_string());
        return refusal(
            StatusCode::FORBIDDEN,
            format!("refused: {why}. Changes are made from this console's own pages.\n"),
        );
    }
    // A function names its cluster when there are several: an old page's
    // form must not act on, nor a read read, whichever cluster is first.
    let console_wide = parts
        .uri
        .path()
        .strip_prefix(SERVER_FN_PREFIX)
        .is_some_and(app::server_fns::is_console_wide);
    if call.is_function()
        && !console_wide
        && p.console.ui.cluster.is_none()
        && p.console.clusters.are_several()
    {
        let why = "it names no cluster, and this console shows several";
        p.refused_early(&parts, &call, why);
        return refusal(
            StatusCode::NOT_FOUND,
            format!("refused: {why}; reload the page and try again\n"),
        );
    }
    // 6. A change is a POST, as every form of the console sends it.
    if matches!(call, Call::Change { .. }) && parts.method != Method::POST {
        p.refused_early(&parts, &call, "a change is sent with POST");
        return refusal(
            StatusCode::METHOD_NOT_ALLOWED,
            "a change is sent with POST\n",
        );
    }
    // Leptos would read an error for a page's form from the page's own URL,
    // where anyone could have written it.
    if !call.is_function() {
        parts.uri = without_error_params(&parts.uri);
    }
    // 7. The body, once.
    let body = if parts.method == Method::GET || parts.method == Method::HEAD {
        Bytes::new()
    } else {
        match read_body(body).await {
            Ok(bytes) => bytes,
            Err((status, why)) => {
                p.refused_early(&parts, &call, why);
                return refusal(status, format!("{why}\n"));
            }
        }
    };
    // 8. A change's record, opened before its function's own checks, with
    // the fields its function takes, read once: a form that is not the
    // function's is recorded without them, and the function refuses it in
    // its own words.
    let (draft, back) = match &call {
        Call::Change { action, fields } => {
            let fields = fields.and_then(|f| f.read(&body));
            // A form its function cannot read is refused, and goes back
            // where it asked all the same.
            let back = match &fields {
                Some(fields) => fields
                    .get("back")
                    .and_then(|v| v.as_str())
                    .map(str::to_owned),
                None => form_field(&body, "back"),
            };
            let back = return_path(&parts, back.as_deref(), &p.home());
            let mut record = p.record_of(&parts, action);
            if let Some(fields) = fields {
                record.target = for_the_record(fields);
            }
            record.attempt = p.console.audit.next_attempt();
            let draft = Draft::open(record);
            parts.extensions.insert(draft.clone());
            (Some(draft), back)
        }
        Call::Read | Call::Unknown => (
            None,
            return_path(&parts, form_field(&body, "back").as_deref(), &p.home()),
        ),
        Call::Page => (None, p.home()),
    };
    let kind = if draft.is_some() {
        Kind::Change
    } else if reads_history(parts.uri.path()) {
        Kind::History
    } else {
        Kind::Render
    };
    // 9. Made within a turn, to its end whoever is still waiting; sent
    // within the bytes its sender may have waiting.
    let sender = p.sender_of(&parts);
    let left = ClientLeft::default();
    let watching = left.watch();
    let console = p.console.clone();
    let is_function = call.is_function();
    let req = Request::from_parts(parts, Body::from(body));
    let unrun = Unrun(draft.clone().map(|d| (d, p.console.audit.clone())));
    let turns = match &p.console.ui.cluster {
        Some(c) => p.cluster_turns.get(&c.id).unwrap_or(&p.turns),
        None => &p.turns,
    };
    let answer = turns.run(kind, sender, async move {
        unrun.ran();
        let response = match AssertUnwindSafe(next.run(req)).catch_unwind().await {
            Ok(response) => response,
            Err(_) => {
                tracing::error!("a request made the console panic; it answered 500");
                failed_inside()
            }
        };
        if !is_function {
            return response;
        }
        let response = with_error_status(response).await;
        if let Some(draft) = &draft {
            let (outcome, reason) = outcome_of(draft, &response);
            let record = draft.finished(outcome, reason, watching.load(Ordering::SeqCst));
            // The change already happened or did not: a record the file
            // cannot take is still in the log and on `/audit`.
            let _ = console.audit.write(record);
        }
        let mut response = back_with_refusal(&console, draft.as_ref(), &back, response);
        if draft.as_ref().is_some_and(Draft::was_sent) {
            response.extensions_mut().insert(crate::turns::ChangeSent);
        }
        response
    });
    let response = answer.await;
    left.answered();
    response
}

impl Pipeline {
    /// The overview of the request's cluster, or of every cluster: where a
    /// refused form goes back to when it says nothing else.
    fn home(&self) -> String {
        self.console
            .ui
            .cluster
            .as_ref()
            .map_or_else(|| "/".to_string(), |c| format!("{}/", c.base()))
    }

    /// Whose send budget an answer counts in: the user a trusted proxy
    /// names (behind it every user has the proxy's address; none when it
    /// names no one), or else the address, an IPv6 one by its /64.
    fn sender_of(&self, parts: &Parts) -> Option<String> {
        let peer = peer_of(parts)?;
        let proxied = self.names_users(peer);
        let user = proxied
            .then(|| {
                identity_of(
                    Some(parts),
                    self.console.actor_header.as_ref(),
                    &self.console.trusted_proxies,
                )
                .user
            })
            .flatten();
        match (user, proxied, peer) {
            (Some(user), _, _) => Some(format!("user {user}")),
            // Every viewer behind the proxy has its address.
            (None, true, _) => None,
            (None, false, IpAddr::V6(v6)) => {
                let [a, b, c, d, ..] = v6.segments();
                Some(format!("{a:x}:{b:x}:{c:x}:{d:x}::/64"))
            }
            (None, false, v4) => Some(v4.to_string()),
        }
    }

    /// A peer that is a trusted proxy naming its users: behind it, each
    /// user is counted apart.
    fn names_users(&self, peer: IpAddr) -> bool {
        self.console.actor_header.is_some()
            && self
                .console
                .trusted_proxies
                .iter()
                .any(|net| net.contains(&peer))
    }

    /// Whose change stream a request opens, and the group it counts in:
    /// an address and its network, or a user behind a trusted proxy (a
    /// group of one).
    fn stream_holder_of(&self, parts: &Parts) -> (String, String) {
        let peer = peer_of(parts);
        let holder = self
            .sender_of(parts)
            .or_else(|| peer.map(|p| format!("proxy {p}")))
            .unwrap_or_default();
        let network = match peer {
            Some(peer) if !self.names_users(peer) => network_of(peer).to_string(),
            _ => holder.clone(),
        };
        (network, holder)
    }

    /// Who is asking, and what, for the audit.
    fn record_of(&self, parts: &Parts, action: &str) -> AuditRecord {
        let who = identity_of(
            Some(parts),
            self.console.actor_header.as_ref(),
            &self.console.trusted_proxies,
        );
        let named = self.console.ui.cluster.is_some() || !self.console.clusters.are_several();
        AuditRecord {
            cluster: named.then(|| self.console.cluster.tag.id.clone()),
            actor: who.actor().to_string(),
            user: who.user.as_ref().map(ToString::to_string),
            peer: who.peer.map(|ip| ip.to_string()),
            ..blank_record(action)
        }
    }

    /// A request refused before its function ran: for an attempt at a
    /// change, an audit record without the body; for anything else, a line
    /// in the log.
    fn refused_early(&self, parts: &Parts, call: &Call, why: &str) {
        self.refused_early_about(parts, call, why, None);
    }

    /// The same, with what it was about (`("host", …)`) in its target.
    fn refused_early_about(
        &self,
        parts: &Parts,
        call: &Call,
        why: &str,
        about: Option<(&str, String)>,
    ) {
        let why = clipped(why, REASON_LIMIT);
        match call {
            Call::Change { action, .. } => {
                let mut record = self.record_of(parts, action);
                record.reason = Some(why);
                if let Some((key, value)) = about {
                    record.target.insert(key.to_string(), value.into());
                }
                self.console.audit.refused_early(record);
            }
            _ => {
                let about = about.map(|(k, v)| format!("{k} {v:?}")).unwrap_or_default();
                tracing::warn!(target: "audit", path = %clipped(parts.uri.path(), 200), reason = %why, %about, "refused a request");
            }
        }
    }
}

fn host_of(parts: &Parts) -> String {
    parts
        .headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .or_else(|| parts.uri.authority().map(|a| a.as_str()))
        .unwrap_or("")
        .to_string()
}

/// The peer's address, an IPv4 client of a dual-stack listener as IPv4.
fn peer_of(parts: &Parts) -> Option<IpAddr> {
    parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(addr)| addr.ip().to_canonical())
}

/// The events page and its function: reads of the journal whose filters
/// the client chooses, and whose cost it therefore chooses too.
fn reads_history(path: &str) -> bool {
    path == app::site_map::EVENTS.path
        || path
            .strip_prefix(SERVER_FN_PREFIX)
            .is_some_and(app::server_fns::reads_history)
}

fn too_many_streams() -> Response {
    retry_later(
        "too many open pages from this address; close some and this one reconnects by itself\n",
        30,
    )
}

/// The body whole, or why not: too large, or too slow to arrive.
async fn read_body(body: Body) -> Result<Bytes, (StatusCode, &'static str)> {
    match tokio::time::timeout(BODY_TIME, axum::body::to_bytes(body, BODY_LIMIT)).await {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(_)) => Err((
            StatusCode::PAYLOAD_TOO_LARGE,
            "the request body is too large or was cut off",
        )),
        Err(_) => Err((
            StatusCode::REQUEST_TIMEOUT,
            "the request body did not arrive in time",
        )),
    }
}

/// `uri` without Leptos's error parameters.
fn without_error_params(uri: &Uri) -> Uri {
    let Some(query) = uri.query() else {
        return uri.clone();
    };
    let is_error = |pair: &str| {
        let key = pair.split('=').next().unwrap_or("");
        key == "__err" || key == "__path"
    };
    if !query.split('&').any(is_error) {
        return uri.clone();
    }
    let kept: Vec<&str> = query.split('&').filter(|p| !is_error(p)).collect();
    let path_and_query = if kept.is_empty() {
        uri.path().to_string()
    } else {
        format!("{}?{}", uri.path(), kept.join("&"))
    };
    path_and_query.parse().unwrap_or_else(|_| uri.clone())
}

/// An attempt whose client left while it waited for its turn never ran:
/// its record says so, rather than nothing.
struct Unrun(Option<(Draft, Arc<AuditLog>)>);

impl Unrun {
    fn ran(mut self) {
        self.0 = None;
    }
}

impl Drop for Unrun {
    fn drop(&mut self) {
        if let Some((draft, audit)) = self.0.take() {
            let why = "the client left before the change's turn came; nothing was sent";
            let _ = audit.write(draft.finished(Outcome::Refused, Some(why.into()), true));
        }
    }
}

/// A panic inside a request, as the audit and the page see it.
fn failed_inside() -> Response {
    let error =
        ConsoleError::Internal("a request made the console panic; its log says more".into());
    let mut response = (StatusCode::INTERNAL_SERVER_ERROR, error.to_string()).into_response();
    response.extensions_mut().insert(error);
    response
}

/// Whether the client went away before its answer was made: the request's
/// future is dropped with the connection, and this guard with it.
#[derive(Default)]
struct ClientLeft {
    gone: Arc<AtomicBool>,
    answered: bool,
}

impl ClientLeft {
    /// What the task making the answer reads.
    fn watch(&self) -> Arc<AtomicBool> {
        self.gone.clone()
    }

    fn answered(mut self) {
        self.answered = true;
    }
}

impl Drop for ClientLeft {
    fn drop(&mut self) {
        if !self.answered {
            self.gone.store(true, Ordering::SeqCst);
        }
    }
}

/// Server functions answer every failure with a 500 (or, to a form posted
/// without JavaScript, a redirect with the error as its body); the
/// console's own error type knows better. Gives each failed call the status
/// its error stands for (403 read-only, 409 a stale confirmation, 502 an
/// admin API that failed...), and leaves the decoded error with the answer
/// for the audit and the return to the page.
async fn with_error_status(response: Response) -> Response {
    let failed = response.status() == StatusCode::INTERNAL_SERVER_ERROR;
    let redirected = response.status().is_redirection();
    if !(failed || redirected) {
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

/// How the attempt ended: the error the call answered with, else what the
/// handler recorded from the admin API's answer, else the status.
fn outcome_of(draft: &Draft, response: &Response) -> (Outcome, Option<String>) {
    if let Some(error) = response.extensions().get::<ConsoleError>() {
        let outcome = match error {
            ConsoleError::AdminApi(_) | ConsoleError::Internal(_) | ConsoleError::Transport(_) => {
                Outcome::Failed
            }
            _ => Outcome::Refused,
        };
        return (outcome, Some(error.to_string()));
    }
    if let Some(recorded) = draft.recorded_outcome() {
        return recorded;
    }
    let status = response.status();
    if status.is_success() || status.is_redirection() {
        (Outcome::Done, None)
    } else if status.is_client_error() {
        (Outcome::Refused, Some(status.to_string()))
    } else {
        (Outcome::Failed, Some(status.to_string()))
    }
}

/// The page a refused form goes back to: the form's `back`, else the page
/// that posted it, else the overview. Always a path on this console.
fn return_path(parts: &Parts, back: Option<&str>, home: &str) -> String {
    // Within the request's cluster, whose overview `home` is.
    let base = home.trim_end_matches('/');
    if back.is_some() {
        return urls::return_path_within(back, home, base);
    }
    let referer = parts
        .headers
        .get(header::REFERER)
        .and_then(|v| v.to_str().ok())
        .and_then(|r| r.split_once("://"))
        .and_then(|(_, rest)| rest.find('/').map(|i| &rest[i..]));
    urls::return_path_within(referer, home, base)
}

/// One field of a form, read on its own.
fn form_field(body: &[u8], name: &str) -> Option<String> {
    serde_urlencoded::from_bytes::<Vec<(String, String)>>(body)
        .ok()?
        .into_iter()
        .find_map(|(key, value)| (key == name).then_some(value))
}

/// A form posted without JavaScript and refused goes back to the page it
/// came from with the refusal as a signed receipt in the console's own
/// words (never Leptos's `__err`, which anyone could write into a link).
fn back_with_refusal(
    console: &ConsoleContext,
    draft: Option<&Draft>,
    back: &str,
    mut response: Response,
) -> Response {
    let Some(error) = response.extensions().get::<ConsoleError>().cloned() else {
        return response;
    };
    // Leptos redirects a form posted without JavaScript, failed or not.
    if !response.status().is_redirection() {
        return response;
    }
    let label = draft
        .and_then(Draft::description)
        .unwrap_or_else(|| "Your last action".to_string());
    let Ok(sealed) = seal(&console.signer, Receipt::refused(label, &error)) else {
        return response;
    };
    let location = urls::with_params(back, &[("receipt", &sealed)]);
    if let Ok(value) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, value);
        *response.status_mut() = StatusCode::SEE_OTHER;
    }
    response
}
