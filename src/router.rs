//! Everything the console answers: pages, server functions, embedded assets,
//! health and readiness, and the headers every answer carries.

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use app::server::clusters::InCluster;
use app::server::{ConsoleContext, csp};
use app::theme::Theme;
use app::{App, shell};
use axum::Router;
use axum::body::Body;
use axum::extract::{FromRef, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use leptos::prelude::{LeptosOptions, provide_context, use_context};
use leptos_axum::{AxumRouteListing, LeptosRoutes, generate_route_list};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

use crate::allowed_hosts::AllowedHosts;
use crate::change_stream::updates;
use crate::cluster_scope::cluster_scope;
use crate::connections::PeerStreams;
use crate::exports::exports;
use crate::metrics::requests::{RequestMeters, count_requests};
use crate::metrics::{Metrics, scrape};
use crate::pipeline::{Pipeline, pipeline};
use crate::readiness::readyz;
use crate::theme_switch::switch_theme;
use crate::turns::Turns;

/// What handlers share: Leptos's options (which its handlers need) and what
/// every render and server function finds in its context.
#[derive(Clone, FromRef)]
pub struct ConsoleState {
    pub leptos_options: LeptosOptions,
    pub console: ConsoleContext,
}

impl ConsoleState {
    /// Gives the request being served its context: the console's (server
    /// only) and the settings the page sees.
    fn provide(&self) {
        let parts = use_context::<Parts>();
        let scope = parts
            .as_ref()
            .and_then(|p| p.extensions.get::<InCluster>().cloned());
        let console = self.console.for_request(scope.as_ref());
        let shown = console.shown_clusters(parts.as_ref().and_then(|p| p.uri.query()));
        let mut ui = console.ui.clone();
        ui.actor = console.actor().to_string();
        ui.theme = Theme::of_request();
        ui.journal_error = console.journal.error_for_viewers();
        // Read before the page reads any list, so the page's data is at
        // least as recent as this heartbeat.
        ui.rendered_at = ConsoleContext::heartbeat_of(&shown);
        // A page shows the last good lists, marked stale, rather than wait
        // for an admin API that does not answer; a server function called
        // as data (a POST) is told the admin API's own word.
        if parts
            .as_ref()
            .is_some_and(|p| p.method == axum::http::Method::GET)
        {
            provide_context(app::server::page_reads::PageReads::default());
        }
        provide_context(console.cluster_base());
        provide_context(console);
        provide_context(ui);
    }
}

/// The app's routes, listed once per process. Listing them runs the app with
/// resource loading suppressed for the whole process (leptos issue 4773): a
/// render that another console in the same process (the tests run dozens)
/// had in flight at that moment would wait forever.
static ROUTES: LazyLock<Vec<AxumRouteListing>> = LazyLock::new(|| generate_route_list(App));

/// Must agree with `output-name` in Cargo.toml, or the page asks the browser
/// for a WASM file that does not exist; cargo-leptos passes the same value.
/// The page asks for its code under `pkg_dir`, a path naming the build
/// (see `assets`).
fn leptos_options(pkg_dir: String) -> LeptosOptions {
    let mut options = LeptosOptions::builder()
        .output_name(option_env!("LEPTOS_OUTPUT_NAME").unwrap_or("llmgw-console"))
        .site_pkg_dir(pkg_dir)
        .env(leptos::config::Env::PROD)
        .build();
    if let Some(port) = csp::dev_reload_port() {
        options.reload_port = port;
    }
    options
}

/// Every answer's policy; a page replaces it with one that admits its own
/// inline scripts by their nonce (see `app::server::csp`).
fn content_security_policy() -> HeaderValue {
    HeaderValue::from_str(&csp::policy(None))
        .unwrap_or(HeaderValue::from_static("default-src 'self'"))
}

pub fn router(console: ConsoleContext, hosts: AllowedHosts, streams: PeerStreams) -> Router {
    let state = ConsoleState {
        leptos_options: leptos_options(console.ui.pkg_dir()),
        console,
    };
    let routes = ROUTES.clone();
    let for_context = state.clone();
    let with_context = move || for_context.provide();
    let options = state.leptos_options.clone();
    let turns = Turns::for_this_machine();
    let pipeline_state = Pipeline {
        console: state.console.clone(),
        hosts,
        cluster_turns: Arc::new(
            state
                .console
                .clusters
                .iter()
                .map(|c| (c.tag.id.clone(), turns.beside()))
                .collect(),
        ),
        turns,
        streams,
    };
    // Health checks answer whatever the `Host` (load balancers and
    // Kubernetes probe by IP address) and whatever the load: outside the
    // pipeline, they read nothing a request could make expensive.
    let health = Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
        .with_state(state.clone());
    // Scraped by address, as health checks are; it checks the name itself.
    let requests = RequestMeters::default();
    let metrics = Metrics::new(
        &state.console,
        &requests,
        &pipeline_state.turns,
        &pipeline_state.streams,
        pipeline_state.hosts.clone(),
    );
    let scraped = Router::new()
        .route("/metrics", get(scrape))
        .with_state(metrics);
    let clusters = state.console.clusters.clone();
    let console = Router::new()
        .leptos_routes_with_context(&state, routes, with_context, move || shell(options.clone()))
        .route(app::heartbeat::PATH, get(updates))
        .route(
            &format!("{}/{{choice}}", app::theme::SWITCH_PATH),
            get(switch_theme),
        )
        .fallback(not_found)
        // A table's page asked for as data, once past every step.
        .layer(axum::middleware::from_fn_with_state(
            state.console.clone(),
            exports,
        ))
        // Every step, in order, in one place: see `pipeline`.
        .layer(axum::middleware::from_fn_with_state(
            pipeline_state,
            pipeline,
        ))
        .with_state(state)
        .merge(health)
        .merge(scraped);
    // Which cluster a request is about is read from its address before
    // the address is routed: `/c/eu/nodes` is the page `/nodes` of `eu`.
    let scoped = tower::Layer::layer(
        &axum::middleware::from_fn_with_state(clusters, cluster_scope),
        console,
    );
    Router::new()
        .fallback_service(scoped)
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
        .layer(TimeoutLayer::with_status_code(
            StatusCode::GATEWAY_TIMEOUT,
            Duration::from_secs(40),
        ))
        // Outside the timeout, so that an answer it cut short counts too.
        .layer(axum::middleware::from_fn_with_state(
            requests,
            count_requests,
        ))
        // Pages and server function answers, gzip when the browser takes it
        // (no brotli encoder: Cargo.toml); embedded assets are already
        // compressed, brotli or gzip, and pass through.
        .layer(CompressionLayer::new())
        .layer(header_layer(header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .layer(header_layer(header::REFERRER_POLICY, "same-origin"))
        .layer(header_layer(header::X_FRAME_OPTIONS, "DENY"))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::CONTENT_SECURITY_POLICY,
            content_security_policy(),
        ))
}

fn header_layer(
    name: header::HeaderName,
    value: &'static str,
) -> SetResponseHeaderLayer<HeaderValue> {
    SetResponseHeaderLayer::if_not_present(name, HeaderValue::from_static(value))
}

/// No page or file at the path: the app renders its not-found page (with a
/// 404 status) inside the usual layout, whole before it is sent, as every
/// page is (`SsrMode::Async`), within the pipeline's turn.
async fn not_found(State(state): State<ConsoleState>, req: Request<Body>) -> Response {
    let options = state.leptos_options.clone();
    let render = leptos_axum::render_app_async_with_context(
        move || state.provide(),
        move || shell(options.clone()),
    );
    render(req).await.into_response()
}
