//! Everything the console answers: pages, server functions, embedded assets,
//! health and readiness, and the headers every answer carries.

use std::sync::LazyLock;
use std::time::Duration;

use app::server::{ConsoleContext, csp};
use app::theme::Theme;
use app::{App, shell};
use axum::Router;
use axum::body::Body;
use axum::extract::{FromRef, State};
use axum::http::{HeaderValue, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use leptos::prelude::{LeptosOptions, provide_context};
use leptos_axum::{AxumRouteListing, LeptosRoutes, generate_route_list};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

use crate::allowed_hosts::{AllowedHosts, refuse_unknown_hosts};
use crate::assets;
use crate::attempts::audit_attempts;
use crate::cross_origin::refuse_cross_origin;
use crate::error_status::status_by_error;
use crate::readiness::readyz;
use crate::refusal_return::return_refusals;
use crate::render_limit::{RenderLimit, limit_renders};
use crate::theme_switch::switch_theme;
use crate::updates::updates;

/// Server function calls carry a few names at most; anything larger is not
/// from this console's pages.
pub const BODY_LIMIT: usize = 64 * 1024;

/// What handlers share: Leptos's options (which its handlers need) and what
/// every render and server function finds in its context.
#[derive(Clone, FromRef)]
pub struct ConsoleState {
    pub leptos_options: LeptosOptions,
    pub console: ConsoleContext,
    pub renders: RenderLimit,
}

impl ConsoleState {
    /// Gives the request being served its context: the console's (server
    /// only) and the settings the page sees.
    fn provide(&self) {
        provide_context(self.console.clone());
        let mut ui = self.console.ui.clone();
        ui.actor = self.console.actor().to_string();
        ui.theme = Theme::of_request();
        // Read before the page reads any list, so the page's data is at
        // least as recent as this heartbeat.
        ui.rendered_at = self.console.changes.current();
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

pub fn router(console: ConsoleContext, hosts: AllowedHosts) -> Router {
    let state = ConsoleState {
        leptos_options: leptos_options(console.ui.pkg_dir()),
        console,
        renders: RenderLimit::for_this_machine(),
    };
    let routes = ROUTES.clone();
    let for_context = state.clone();
    let with_context = move || for_context.provide();
    let options = state.leptos_options.clone();
    Router::new()
        .leptos_routes_with_context(&state, routes, with_context, move || shell(options.clone()))
        // Every page and server function Leptos answers, those added later
        // included, and only those: the routes below hold no render.
        .route_layer(axum::middleware::from_fn_with_state(
            state.renders.clone(),
            limit_renders,
        ))
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
        .route(app::heartbeat::PATH, get(updates))
        .route(
            &format!("{}/{{choice}}", app::theme::SWITCH_PATH),
            get(switch_theme),
        )
        .fallback(assets_or_not_found)
        .layer(axum::middleware::from_fn(status_by_error))
        // Inside the cross-site refusal: only the console's own forms come
        // back to their page.
        .layer(axum::middleware::from_fn_with_state(
            state.console.clone(),
            return_refusals,
        ))
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
        // Outside every refusal, so that refused attempts are audited too.
        .layer(axum::middleware::from_fn_with_state(
            state.console.clone(),
            audit_attempts,
        ))
        .layer(TraceLayer::new_for_http())
        .layer(RequestBodyLimitLayer::new(BODY_LIMIT))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::GATEWAY_TIMEOUT,
            Duration::from_secs(40),
        ))
        // Pages and server function answers, brotli or gzip as the browser
        // asks; embedded assets are already compressed and pass through.
        .layer(CompressionLayer::new())
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
    let renders = state.renders.clone();
    // Whole before it is sent, as every page is (`SsrMode::Async`), so that
    // the render runs to its end inside its turn (see `render_limit`).
    let render = leptos_axum::render_app_async_with_context(
        move || state.provide(),
        move || shell(options.clone()),
    );
    renders
        .run(async move { render(req).await.into_response() })
        .await
}
