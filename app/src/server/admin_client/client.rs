//! The one HTTP client for the admin API, built once at start-up and shared by
//! every server function.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::{Method, StatusCode, Url, header::CONTENT_TYPE};
use serde::{Serialize, de::DeserializeOwned};

use super::actor::{Actor, ChangeAuthorized};
use super::address::{parse_admin_api_base, redacted};
use crate::admin_api::error::AdminApiError;
use crate::admin_api::types::{
    CollectRequest, CollectResult, ErrorBody, ExplainView, ModelView, NodeStateChange,
    NodeStateRequest, NodeView, OrphanView, ReplicaView, TargetState,
};
use crate::server::meters::UpstreamMeter;

/// The same per-request limit as `llmgw ctl`.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);

/// How much of an error body becomes the message, as `llmgw ctl` reads it.
const ERROR_BODY_LIMIT: usize = 4 * 1024;

/// No real answer comes near this; a larger one is an API that is lying, and
/// reading it whole would let it exhaust the console's memory.
const BODY_LIMIT: usize = 64 * 1024 * 1024;

#[derive(Clone)]
pub struct AdminApiClient {
    base: Url,
    /// `base` without its credentials: the only form shown or logged.
    shown: String,
    http: reqwest::Client,
    /// When the admin API last answered a call in full (Unix ms; 0: never),
    /// for the readiness check.
    last_answer: Arc<AtomicU64>,
    /// Where each call is counted, for `/metrics`.
    meter: Option<UpstreamMeter>,
}

/// Only the address as shown: `base` may carry credentials, and a `Debug`
/// of the context (a panic, a log line) must not print them.
impl std::fmt::Debug for AdminApiClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdminApiClient")
            .field("address", &self.shown)
            .finish_non_exhaustive()
    }
}

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl AdminApiClient {
    /// Builds the client for an address as an operator would type it.
    pub fn new(address: &str) -> Result<Self, String> {
        let base = parse_admin_api_base(address)?;
        let http = reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .connect_timeout(Duration::from_secs(5))
            .user_agent(concat!("llmgw-console/", env!("CARGO_PKG_VERSION")))
            // A redirect would carry the actor and the change to an address
            // the operator never configured; the admin API answers, or fails.
            .redirect(reqwest::redirect::Policy::none())
            // Nor does an HTTP(S)_PROXY meant for other programs get to see
            // the admin API's traffic.
            .no_proxy()
            .build()
            .map_err(|e| format!("cannot set up the HTTP client: {e}"))?;
        Ok(Self {
            shown: redacted(&base),
            base,
            http,
            last_answer: Arc::default(),
            meter: None,
        })
    }

    /// The same client, counting its calls in `meter`.
    pub fn metered(self, meter: UpstreamMeter) -> Self {
        Self {
            meter: Some(meter),
            ..self
        }
    }

    /// The address requests go to, as shown to operators (credentials
    /// hidden).
    pub fn address(&self) -> &str {
        &self.shown
    }

    /// How long ago the admin API last answered a call in full.
    pub fn since_last_answer(&self) -> Option<Duration> {
        match self.last_answer.load(Ordering::Relaxed) {
            0 => None,
            at => Some(Duration::from_millis(unix_ms().saturating_sub(at))),
        }
    }

    pub async fn list_nodes(&self, actor: &Actor) -> Result<Vec<NodeView>, AdminApiError> {
        let url = self.url(&["nodes"]);
        let route = "/api/v1/nodes";
        self.get_list((url, route), actor, "a node list").await
    }

    pub async fn list_models(&self, actor: &Actor) -> Result<Vec<ModelView>, AdminApiError> {
        let url = self.url(&["models"]);
        let route = "/api/v1/models";
        self.get_list((url, route), actor, "a model list").await
    }

    /// Every replica, or only one model's.
    pub async fn list_replicas(
        &self,
        actor: &Actor,
        model: Option<&str>,
    ) -> Result<Vec<ReplicaView>, AdminApiError> {
        let mut url = self.url(&["replicas"]);
        if let Some(model) = model {
            url.query_pairs_mut().append_pair("model", model);
        }
        let route = "/api/v1/replicas";
        self.get_list((url, route), actor, "a replica list").await
    }

    pub async fn explain_placement(
        &self,
        actor: &Actor,
        model: &str,
    ) -> Result<ExplainView, AdminApiError> {
        let mut url = self.url(&["explain-placement"]);
        url.query_pairs_mut().append_pair("model", model);
        self.call(
            Method::GET,
            (url, "/api/v1/explain-placement"),
            actor,
            None::<&()>,
            "a placement explanation",
        )
        .await
    }

    pub async fn set_node_state(
        &self,
        change: &ChangeAuthorized,
        node: &str,
        state: TargetState,
    ) -> Result<NodeStateChange, AdminApiError> {
        let url = self.url(&["nodes", node, "state"]);
        let body = NodeStateRequest { state };
        self.call(
            Method::POST,
            (url, "/api/v1/nodes/{node}/state"),
            change.actor(),
            Some(&body),
            "a node state",
        )
        .await
    }

    pub async fn list_orphans(&self, actor: &Actor) -> Result<Vec<OrphanView>, AdminApiError> {
        let url = self.url(&["weights", "orphans"]);
        self.get_list(
            (url, "/api/v1/weights/orphans"),
            actor,
            "an orphaned-weights list",
        )
        .await
    }

    /// Asks one node (or, with `None`, every node) to delete its orphans.
    pub async fn collect_weights(
        &self,
        change: &ChangeAuthorized,
        node: Option<&str>,
    ) -> Result<Vec<CollectResult>, AdminApiError> {
        let url = self.url(&["weights", "collect"]);
        let body = CollectRequest {
            node: node.unwrap_or_default().to_string(),
        };
        let actor = change.actor();
        let route = "/api/v1/weights/collect";
        self.call_list(
            Method::POST,
            (url, route),
            actor,
            Some(&body),
            "collection results",
        )
        .await
    }

    /// `base/api/v1/<segments>`, each segment percent-encoded on its own so a
    /// node id can never reach another path.
    fn url(&self, segments: &[&str]) -> Url {
        let mut url = self.base.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty().extend(["api", "v1"]).extend(segments);
        }
        url
    }

    /// A list read with GET.
    async fn get_list<T>(
        &self,
        url: (Url, &'static str),
        actor: &Actor,
        expected: &'static str,
    ) -> Result<Vec<T>, AdminApiError>
    where
        T: DeserializeOwned + Send + 'static,
    {
        self.call_list(Method::GET, url, actor, None::<&()>, expected)
            .await
    }

    /// A list endpoint. Go encodes an empty (nil) slice as `null`, which
    /// means "none", not a broken answer.
    async fn call_list<B, T>(
        &self,
        method: Method,
        url: (Url, &'static str),
        actor: &Actor,
        body: Option<&B>,
        expected: &'static str,
    ) -> Result<Vec<T>, AdminApiError>
    where
        B: Serialize + ?Sized,
        T: DeserializeOwned + Send + 'static,
    {
        let list: Option<Vec<T>> = self.call(method, url, actor, body, expected).await?;
        Ok(list.unwrap_or_default())
    }

    /// One call to `url`, whose route's template is `route`: counted by
    /// the template, so that the meters grow with the routes, not the
    /// names in them.
    async fn call<B, T>(
        &self,
        method: Method,
        (url, route): (Url, &'static str),
        actor: &Actor,
        body: Option<&B>,
        expected: &'static str,
    ) -> Result<T, AdminApiError>
    where
        B: Serialize + ?Sized,
        T: DeserializeOwned + Send + 'static,
    {
        let started = std::time::Instant::now();
        let answer: Result<T, AdminApiError> = async {
            let mut request = self
                .http
                .request(method, url)
                .header("X-Llmgw-Actor", actor.as_str());
            if let Some(body) = body {
                request = request.json(body);
            }
            let mut response = request.send().await.map_err(|e| self.unreachable(&e))?;
            let status = response.status();
            let limit = if status == StatusCode::OK {
                BODY_LIMIT
            } else {
                ERROR_BODY_LIMIT
            };
            let bytes = read_at_most(&mut response, limit)
                .await
                .map_err(|e| self.unreachable(&e))?;
            if status != StatusCode::OK {
                return Err(AdminApiError::Status {
                    code: status.as_u16(),
                    status: status_line(status),
                    message: error_message(&bytes),
                });
            }
            if bytes.len() > BODY_LIMIT {
                return Err(self.malformed(expected, "the answer is larger than 64 MiB".into()));
            }
            let is_json = response
                .headers()
                .get(CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .is_none_or(|v| v.contains("json"));
            let decoded = decode(bytes).await.map_err(|e| {
                let cause = if is_json {
                    e.to_string()
                } else {
                    format!("it is not JSON ({e})")
                };
                self.malformed(expected, cause)
            })?;
            self.last_answer.store(unix_ms(), Ordering::Relaxed);
            Ok(decoded)
        }
        .await;
        if let Some(meter) = &self.meter {
            meter.observe(route, started.elapsed().as_secs_f64(), &answer);
        }
        answer
    }

    fn unreachable(&self, e: &reqwest::Error) -> AdminApiError {
        AdminApiError::Unreachable {
            address: self.address().to_string(),
            cause: describe_transport_error(e),
        }
    }

    fn malformed(&self, expected: &'static str, cause: String) -> AdminApiError {
        AdminApiError::Malformed {
            address: self.address().to_string(),
            expected: expected.to_string(),
            cause,
        }
    }
}

/// Answers larger than this are decoded on a thread of their own.
const DECODED_ASIDE: usize = 256 * 1024;

/// Decodes an answer. A 20,000-node list takes tens of milliseconds to
/// decode: on a request thread that would hold up every request sharing it,
/// and the lists fetched together for one page would decode one after the
/// other instead of side by side.
async fn decode<T>(bytes: Vec<u8>) -> Result<T, serde_json::Error>
where
    T: DeserializeOwned + Send + 'static,
{
    if bytes.len() <= DECODED_ASIDE {
        return serde_json::from_slice(&bytes);
    }
    match tokio::task::spawn_blocking(move || serde_json::from_slice(&bytes)).await {
        Ok(decoded) => decoded,
        // A panic while decoding is the console's own fault, not llmgw's: it
        // goes on as it would have on this thread.
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        // The runtime is shutting down.
        Err(e) => Err(serde::de::Error::custom(format!("decoding stopped: {e}"))),
    }
}

/// Reads up to `limit + 1` bytes, so a caller can tell "exactly the limit"
/// from "more than the limit" without holding an unbounded body.
async fn read_at_most(
    response: &mut reqwest::Response,
    limit: usize,
) -> Result<Vec<u8>, reqwest::Error> {
    let mut out = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        let room = (limit + 1).saturating_sub(out.len());
        out.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if out.len() > limit {
            break;
        }
    }
    Ok(out)
}

/// "404 Not Found", as Go prints a status.
fn status_line(status: StatusCode) -> String {
    match status.canonical_reason() {
        Some(reason) => format!("{} {reason}", status.as_u16()),
        None => status.as_u16().to_string(),
    }
}

/// The server's `{"error": ...}` when it sent one, otherwise the first 4 KiB
/// of whatever it sent, trimmed.
fn error_message(body: &[u8]) -> String {
    let head = &body[..body.len().min(ERROR_BODY_LIMIT)];
    if let Ok(ErrorBody { error }) = serde_json::from_slice::<ErrorBody>(head)
        && !error.trim().is_empty()
    {
        return error;
    }
    let text = String::from_utf8_lossy(head).trim().to_string();
    if text.is_empty() {
        "(no message)".into()
    } else {
        text
    }
}

/// The innermost cause of a transport failure ("Connection refused"), which
/// says more than reqwest's outer "error sending request".
fn describe_transport_error(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        return format!("no answer within {} seconds", REQUEST_TIMEOUT.as_secs());
    }
    let mut innermost: &dyn std::error::Error = e;
    while let Some(source) = innermost.source() {
        innermost = source;
    }
    let text = innermost.to_string();
    if text.is_empty() { e.to_string() } else { text }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_never_reach_a_debug_output() {
        let client = AdminApiClient::new("http://ops:s3cret-pass@10.0.0.5:9090").expect("valid");
        let shown = format!("{client:?}");
        assert!(!shown.contains("s3cret-pass"), "{shown}");
        assert!(shown.contains("10.0.0.5"), "{shown}");
    }

    #[tokio::test]
    async fn a_large_answer_decodes_aside_as_a_small_one_does() {
        let names: Vec<String> = (0..40_000).map(|i| format!("node-{i:06}")).collect();
        let body = serde_json::to_vec(&names).expect("encodes");
        assert!(body.len() > DECODED_ASIDE);
        let decoded: Vec<String> = decode(body.clone()).await.expect("decodes");
        assert_eq!(decoded, names);
        let small: Vec<String> = decode(b"[\"a\"]".to_vec()).await.expect("decodes");
        assert_eq!(small, ["a"]);
        let mut cut = body;
        cut.truncate(DECODED_ASIDE + 10);
        let broken = decode::<Vec<String>>(cut).await.expect_err("cut short");
        assert!(broken.is_eof(), "{broken}");
    }

    #[test]
    fn error_messages_read_like_llmgw_ctl() {
        assert_eq!(
            error_message(br#"{"error":"no such node"}"#),
            "no such node"
        );
        assert_eq!(
            error_message(b"  upstream exploded \n"),
            "upstream exploded"
        );
        assert_eq!(error_message(br#"{"error":""}"#), r#"{"error":""}"#);
        assert_eq!(error_message(b""), "(no message)");
        let long = vec![b'x'; 10_000];
        assert_eq!(error_message(&long).len(), ERROR_BODY_LIMIT);
    }

    #[test]
    fn status_lines_carry_the_reason() {
        assert_eq!(status_line(StatusCode::NOT_FOUND), "404 Not Found");
        assert_eq!(
            status_line(StatusCode::from_u16(599).expect("valid")),
            "599"
        );
    }

    #[test]
    fn path_segments_are_encoded_one_by_one() {
        let c = AdminApiClient::new("127.0.0.1:9090").expect("valid");
        let url = c.url(&["nodes", "a/../../b c", "state"]);
        assert_eq!(
            url.as_str(),
            "http://127.0.0.1:9090/api/v1/nodes/a%2F..%2F..%2Fb%20c/state"
        );
        let c = AdminApiClient::new("https://ops.example/llmgw/").expect("valid");
        assert_eq!(
            c.url(&["nodes"]).as_str(),
            "https://ops.example/llmgw/api/v1/nodes"
        );
    }
}
