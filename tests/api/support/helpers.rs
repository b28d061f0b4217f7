use std::future::{Future, IntoFuture};
use std::net::SocketAddr;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;

use app::admin_api::types::{ExplainView, ModelView, NodeView, OrphanView, Rejection, ReplicaView};
use app::server::ConsoleContext;
use axum::Router;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use llmgw_console::allowed_hosts::AllowedHosts;
use llmgw_console::connections::{self, Limits};
use llmgw_console::router::router;
use llmgw_console::settings::Settings;
use llmgw_console::simulator::Simulator;
use llmgw_console::startup::console_context;
use tokio::net::TcpListener;

use crate::support::html::Page;

/// Every server of this test binary runs here. Leptos keeps one global
/// executor bound to the first runtime it sees; with a runtime per test, a
/// render could be handed to the runtime of a test that had already ended
/// and never finish. One long-lived runtime is also how production runs.
static SERVERS: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
});

/// Binds `addr` now and serves `app` on the shared runtime.
fn serve_on_shared_runtime<F, Fut>(addr: SocketAddr, app: F) -> SocketAddr
where
    F: FnOnce(TcpListener) -> Fut + Send + 'static,
    Fut: Future<Output = std::io::Result<()>> + Send + 'static,
{
    let listener = std::net::TcpListener::bind(addr).expect("binds");
    listener.set_nonblocking(true).expect("non-blocking");
    let bound = listener.local_addr().expect("addr");
    SERVERS.spawn(async move {
        let listener = TcpListener::from_std(listener).expect("tokio listener");
        app(listener).await
    });
    bound
}

/// Serves `simulator` at `addr` (port 0 for any free port).
pub fn spawn_simulator(simulator: Simulator, addr: SocketAddr) -> SocketAddr {
    serve_on_shared_runtime(addr, move |listener| simulator.serve(listener))
}

pub fn settings() -> Settings {
    Settings {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        admin_api: None,
        clusters: Vec::new(),
        // Lists are shared for one period; a short one lets a test see a
        // change made behind the console's back after a second.
        refresh_seconds: 1.0,
        read_only: false,
        actor_header: Some(axum::http::HeaderName::from_static("x-forwarded-user")),
        trusted_proxies: vec!["127.0.0.0/8".parse().expect("cidr")],
        require_user: false,
        allowed_hosts: Vec::new(),
        secret_file: None,
        audit_log: None,
        log: "warn".into(),
        metrics_per_node: false,
        links: Vec::new(),
        // The router alone records nothing; a console process gets a data
        // directory of its own (process.rs).
        journal: llmgw_console::settings::JournalAt::DataDir(std::env::temp_dir()),
        record_seconds: 30,
        retain_days: 30,
    }
}

/// Every list the simulated admin API serves.
pub struct Lists {
    pub nodes: Vec<NodeView>,
    pub models: Vec<ModelView>,
    pub replicas: Vec<ReplicaView>,
    pub orphans: Vec<OrphanView>,
    pub explains: Vec<ExplainView>,
}

impl Lists {
    pub fn node(&self, id: &str) -> &NodeView {
        self.nodes
            .iter()
            .find(|n| n.id == id)
            .expect("a node of the cluster")
    }

    /// Every rejection that names `node`, of the models a node page shows
    /// rejections of (those short of their wanted count).
    pub fn rejections_naming(&self, node: &str) -> Vec<&Rejection> {
        let shown: Vec<&str> = self
            .models
            .iter()
            .filter(|m| app::server::rejection_index::worth_explaining(m))
            .map(|m| m.name.as_str())
            .collect();
        self.explains
            .iter()
            .filter(|e| shown.contains(&e.model.as_str()))
            .flat_map(|e| &e.rejections)
            .filter(|r| r.node == node)
            .collect()
    }
}

/// A console in front of a simulated admin API, both really listening.
pub struct TestApp {
    pub console: String,
    /// The console's audit, as its `/audit` page reads it.
    pub audit: Arc<app::server::audit::AuditLog>,
    pub simulator: Simulator,
    pub admin_api: String,
    pub http: reqwest::Client,
}

/// Where the one cluster of a console given one admin API lives.
pub const BASE: &str = "/c/default";

/// `path` (`/nodes`) as a page of that cluster links to it.
pub fn scoped(path: &str) -> String {
    format!("{BASE}{path}")
}

impl TestApp {
    pub async fn spawn() -> Self {
        Self::spawn_with(|_| {}).await
    }

    /// A console whose context `adjust` may change (a short confirmation
    /// expiry, read-only mode) before it starts.
    pub async fn spawn_with(adjust: impl FnOnce(&mut ConsoleContext)) -> Self {
        Self::spawn_on(Simulator::demo(), adjust).await
    }

    /// A console in front of `simulator` instead of the demo cluster.
    pub async fn spawn_on(simulator: Simulator, adjust: impl FnOnce(&mut ConsoleContext)) -> Self {
        let addr = spawn_simulator(simulator.clone(), SocketAddr::from(([127, 0, 0, 1], 0)));
        let admin_api = format!("http://{addr}");
        let mut context = console_context(&settings(), &admin_api).expect("valid settings");
        adjust(&mut context);
        let audit = context.audit.clone();
        let console = spawn_console_from(context);
        Self {
            console,
            audit,
            simulator,
            admin_api,
            http: http(),
        }
    }

    /// What the simulated admin API holds right now: the source of every
    /// expected value, so that no test restates a fact of the demo cluster.
    pub fn lists(&self) -> Lists {
        let now = std::time::Instant::now();
        let mut cluster = self.simulator.cluster();
        let nodes = cluster.list_nodes(now);
        let models = cluster.list_models(now);
        let explains = models
            .iter()
            .filter_map(|m| cluster.explain(now, &m.name).ok())
            .collect();
        Lists {
            nodes,
            models,
            replicas: cluster.list_replicas(now, None),
            orphans: cluster.list_orphans(now),
            explains,
        }
    }

    /// The console's audit records, newest first.
    /// `path` on the console: a page or function of its one cluster
    /// (`/nodes` is `/c/default/nodes`), unless it names a cluster itself.
    pub fn url(&self, path: &str) -> String {
        if path.starts_with("/c/") {
            format!("{}{path}", self.console)
        } else {
            format!("{}{BASE}{path}", self.console)
        }
    }

    pub fn context_audit(&self) -> Vec<app::server::audit::AuditRecord> {
        self.audit.recent()
    }

    /// A page, parsed, after checking that it answered 200.
    pub async fn parsed(&self, path: &str) -> Page {
        Page::parse(&self.page(path).await)
    }

    /// A node page once the explanations it started reading are all in:
    /// a page renders at once with what is there, and says while it is
    /// still reading (`.gathering`).
    pub async fn settled_page(&self, path: &str) -> Page {
        let what = format!("{path} has read every explanation");
        crate::support::poll::until_within(Duration::from_secs(5), &what, async || {
            let page = self.parsed(path).await;
            (!page.has(".gathering")).then_some(page)
        })
        .await
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.http
            .get(self.url(path))
            .send()
            .await
            .expect("console answers")
    }

    /// A GET of `path` with `headers` added.
    pub async fn get_with(&self, path: &str, headers: &[(&str, &str)]) -> reqwest::Response {
        let mut request = self.http.get(self.url(path));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request.send().await.expect("console answers")
    }

    /// A server function called with `form` and `headers` added.
    pub async fn post_with(
        &self,
        name: &str,
        form: &[(&str, &str)],
        headers: &[(&str, &str)],
    ) -> reqwest::Response {
        let mut request = self.http.post(self.url(&format!("/api/{name}"))).form(form);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request.send().await.expect("console answers")
    }

    pub async fn page(&self, path: &str) -> String {
        let response = self.get(path).await;
        let status = response.status();
        let body = response.text().await.expect("body");
        if status != 200 {
            // The page's own words say why.
            let page = crate::support::html::Page::parse(&body);
            let why: String = if page.has("main") {
                page.text("main")
            } else {
                body.chars().take(500).collect()
            };
            panic!("GET {path}: {status}: {why}");
        }
        body
    }

    /// Posts a form to a server function the way a browser without
    /// JavaScript does (it asks for HTML back, and gets a redirect).
    pub async fn post_form_without_js(
        &self,
        name: &str,
        form: &[(&str, &str)],
    ) -> reqwest::Response {
        self.http
            .post(self.url(&format!("/api/{name}")))
            .header("accept", "text/html")
            .form(form)
            .send()
            .await
            .expect("console answers")
    }

    /// Calls a server function the way a Leptos client does: a POST by
    /// `fetch`, which is answered with the redirect in headers.
    pub async fn server_fn(&self, name: &str, form: &[(&str, &str)]) -> reqwest::Response {
        self.http
            .post(self.url(&format!("/api/{name}")))
            .form(form)
            .send()
            .await
            .expect("console answers")
    }

    /// Cordons `node` through the console, as a confirmed click does.
    pub async fn cordon(&self, node: &str) {
        self.set_state(node, "cordoned").await;
    }

    /// Puts `node` in `state` through the console, as a confirmed click does.
    pub async fn set_state(&self, node: &str, state: &str) {
        let answer = self
            .server_fn(
                "set_node_state",
                &[("node", node), ("state", state), ("confirm", "yes")],
            )
            .await;
        assert_eq!(answer.status(), 200, "{state} {node}");
    }
}

pub fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
}

/// What the simulated admin API at `url` lists under `list` ("nodes",
/// "replicas"...), as the console reads it.
pub async fn simulator_list(url: &str, list: &str) -> Vec<serde_json::Value> {
    http()
        .get(format!("{url}/api/v1/{list}"))
        .send()
        .await
        .expect("the simulator answers")
        .json()
        .await
        .expect("a list")
}

/// A GET of `url` with `headers` added, whatever its status.
pub async fn get(url: &str, headers: &[(&str, &str)]) -> reqwest::Response {
    let mut request = http().get(url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.expect("console answers")
}

/// The body of `path` on a console, whatever its status.
pub async fn fetch_page(console: &str, path: &str) -> String {
    let base = if path.starts_with("/c/") { "" } else { BASE };
    http()
        .get(format!("{console}{base}{path}"))
        .send()
        .await
        .expect("console answers")
        .text()
        .await
        .expect("body")
}

/// Starts a console for `admin_api` and returns its base URL.
pub async fn spawn_console(admin_api: &str) -> String {
    spawn_console_with(settings(), admin_api)
}

pub fn spawn_console_with(settings: Settings, admin_api: &str) -> String {
    let context = console_context(&settings, admin_api).expect("valid settings");
    spawn_console_from(context)
}

/// Starts a console from a context the test has adjusted.
pub fn spawn_console_from(context: ConsoleContext) -> String {
    spawn_console_limited(context, Limits::for_this_process())
}

/// Starts a console whose connections are bounded by `limits`.
pub fn spawn_console_limited(context: ConsoleContext, limits: Limits) -> String {
    let addr = serve_on_shared_runtime(SocketAddr::from(([127, 0, 0, 1], 0)), move |listener| {
        let app = router(
            context,
            AllowedHosts::new(SocketAddr::from(([127, 0, 0, 1], 0)), &[]),
            limits.stream_places(),
        );
        connections::serve(listener, app, limits, std::future::pending())
    });
    format!("http://{addr}")
}

/// A port that nothing listens on right now.
pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("binds");
    listener.local_addr().expect("addr").port()
}

/// One request as an upstream received it.
#[derive(Clone, Debug)]
pub struct SeenRequest {
    pub method: axum::http::Method,
    /// The path and query exactly as sent, still encoded.
    pub uri: axum::http::Uri,
    pub headers: HeaderMap,
}

/// An upstream that answers every request with one canned response and
/// records what it was sent: for an admin API that lies or breaks, and for
/// checking what the console asks for.
#[derive(Clone)]
pub struct ScriptedUpstream {
    pub address: String,
    pub seen: Arc<Mutex<Vec<SeenRequest>>>,
}

impl ScriptedUpstream {
    pub async fn spawn(status: u16, content_type: &'static str, body: Vec<u8>) -> Self {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let recorded = seen.clone();
        let app = Router::new().fallback(
            move |method: axum::http::Method, uri: axum::http::Uri, headers: HeaderMap| {
                let recorded = recorded.clone();
                let body = body.clone();
                async move {
                    recorded.lock().expect("lock").push(SeenRequest {
                        method,
                        uri,
                        headers,
                    });
                    (
                        StatusCode::from_u16(status).expect("status"),
                        [("content-type", content_type)],
                        body,
                    )
                        .into_response()
                }
            },
        );
        let addr =
            serve_on_shared_runtime(SocketAddr::from(([127, 0, 0, 1], 0)), move |listener| {
                axum::serve(listener, app).into_future()
            });
        Self {
            address: format!("http://{addr}"),
            seen,
        }
    }

    pub fn requests(&self) -> Vec<SeenRequest> {
        self.seen.lock().expect("lock").clone()
    }

    /// How many times each path was asked for.
    pub fn calls_by_path(&self) -> std::collections::BTreeMap<String, usize> {
        let mut counts = std::collections::BTreeMap::new();
        for r in self.requests() {
            *counts.entry(r.uri.path().to_string()).or_default() += 1;
        }
        counts
    }

    pub fn last_header(&self, name: &str) -> Option<String> {
        self.requests()
            .last()
            .and_then(|r| r.headers.get(name))
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    }
}

/// An actor named `name`, for calls made straight to an admin API.
pub fn actor(name: &str) -> app::server::admin_client::Actor {
    app::server::admin_client::Actor::new(name).expect("valid")
}

/// What a change sends as `name`, from a writable console, once its record
/// is written: what a test needs to call an admin API's changes directly.
pub fn authorized(name: &str) -> app::server::admin_client::ChangeAuthorized {
    use app::server::admin_client::{ChangePermitted, ChangePolicy, Identity};
    use app::server::audit::{AuditLog, Draft, blank_record};
    let who = Identity {
        user: Some(actor(name)),
        peer: None,
    };
    let permitted =
        ChangePermitted::check(ChangePolicy::default(), &who).expect("a writable console");
    let audit = AuditLog::new(None).expect("in memory");
    let written = Draft::open(blank_record(name))
        .sending(&audit)
        .expect("recorded");
    permitted.recorded(written)
}
