//! Everything the console answers: pages, server functions, embedded assets,
//! a health check, and the headers every answer carries.

use std::sync::Arc;
use std::time::Duration;

use app::server::ConsoleContext;
use app::server_fns::receipts::Receipts;
use app::{App, shell};
use axum::Router;
use axum::body::Body;
use axum::extract::{FromRef, State};
use axum::http::{HeaderValue, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use leptos::prelude::{LeptosOptions, provide_context};
use leptos_axum::{LeptosRoutes, generate_route_list};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

use crate::allowed_hosts::{AllowedHosts, refuse_unknown_hosts};
use crate::assets;
use crate::cross_origin::refuse_cross_origin;
use crate::error_status::status_by_error;

/// What handlers share: Leptos's options (which its handlers need) and what
/// every render and server function finds in its context.
#[derive(Clone, FromRef)]
pub struct ConsoleState {
    pub leptos_options: LeptosOptions,
    pub console: ConsoleContext,
    pub receipts: Arc<Receipts>,
}

impl ConsoleState {
    /// Gives the request being served its context: the console's (server
    /// only), the settings the page sees, and the receipts store.
    fn provide(&self) {
        provide_context(self.console.clone());
        provide_context(self.console.ui.clone());
        provide_context(self.receipts.clone());
    }
}

/// Must agree with `output-name` in Cargo.toml, or the page asks the browser
/// for a WASM file that does not exist; cargo-leptos passes the same value.
fn leptos_options() -> LeptosOptions {
    let mut options = LeptosOptions::builder()
        .output_name(option_env!("LEPTOS_OUTPUT_NAME").unwrap_or("llmgw-console"))
        .site_pkg_dir("pkg")
        .env(leptos::config::Env::PROD)
        .build();
    if let Some(port) = dev_reload_port() {
        options.reload_port = port;
    }
    options
}

/// The port of cargo-leptos's reload socket, when `make dev` runs the console
/// under `cargo leptos watch`; never set in a deployment.
fn dev_reload_port() -> Option<u32> {
    std::env::var_os("LEPTOS_WATCH")?;
    std::env::var("LEPTOS_RELOAD_PORT").ok()?.parse().ok()
}

/// The policy leaves inline scripts allowed because hydration writes its data
/// as inline scripts; what it forbids is framing, plugins, foreign origins.
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self' 'unsafe-inline' \
    'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; \
    connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; \
    object-src 'none'";

/// Under `make dev` the page also connects to cargo-leptos's reload socket,
/// on another port, so the policy lets it.
fn content_security_policy() -> HeaderValue {
    let policy = match dev_reload_port() {
        Some(port) => CONTENT_SECURITY_POLICY.replace(
            "connect-src 'self'",
            &format!("connect-src 'self' ws://127.0.0.1:{port} ws://localhost:{port}"),
        ),
        None => CONTENT_SECURITY_POLICY.to_string(),
    };
    HeaderValue::from_str(&policy).unwrap_or(HeaderValue::from_static(CONTENT_SECURITY_POLICY))
}

pub fn router(console: ConsoleContext, hosts: AllowedHosts) -> Router {
    let state = ConsoleState {
        leptos_options: leptos_options(),
        console,
        receipts: Arc::default(),
    };
    let routes = generate_route_list(App);
    let for_context = state.clone();
    let with_context = move || for_context.provide();
    let options = state.leptos_options.clone();
    Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .leptos_routes_with_context(&state, routes, with_context, move || shell(options.clone()))
        .fallback(assets_or_not_found)
        .layer(axum::middleware::from_fn(status_by_error))
        // Every request that could change something, server functions added
        // later included, is refused when another site sent it.
        .layer(axum::middleware::from_fn(refuse_cross_origin))
        // Before anything is rendered: a name this console does not answer
        // to is a DNS rebinding attempt, or a mistake.
        .layer(axum::middleware::from_fn_with_state(
            hosts,
            refuse_unknown_hosts,
        ))
        // The last guard: no request input may take the connection down.
        .layer(CatchPanicLayer::custom(|_panic| {
            tracing::error!("a request made the console panic; it answered 500");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                "the console failed; its log says more\n",
            )
                .into_response()
        }))
        .layer(TraceLayer::new_for_http())
        // Server function calls carry a few names at most; anything large is
        // not from this console's pages.
        .layer(RequestBodyLimitLayer::new(64 * 1024))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::GATEWAY_TIMEOUT,
            Duration::from_secs(40),
        ))
        .layer(header_layer(header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .layer(header_layer(header::REFERRER_POLICY, "same-origin"))
        .layer(header_layer(header::X_FRAME_OPTIONS, "DENY"))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::CONTENT_SECURITY_POLICY,
            content_security_policy(),
        ))
        .with_state(state)
}

fn header_layer(
    name: header::HeaderName,
    value: &'static str,
) -> SetResponseHeaderLayer<HeaderValue> {
    SetResponseHeaderLayer::if_not_present(name, HeaderValue::from_static(value))
}

/// An embedded file if there is one at the path, otherwise the app renders
/// its not-found page (with a 404 status) inside the usual layout.
async fn assets_or_not_found(State(state): State<ConsoleState>, req: Request<Body>) -> Response {
    if let Some(response) = assets::respond(req.method(), req.uri().path(), req.headers()) {
        return response;
    }
    let options = state.leptos_options.clone();
    let render = leptos_axum::render_app_to_stream_with_context(
        move || state.provide(),
        move || shell(options.clone()),
    );
    render(req).await.into_response()
}
