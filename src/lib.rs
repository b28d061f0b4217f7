//! llmgw-console: the server (start-up, settings, routes, embedded assets,
//! the simulated admin API) and, built for WASM, the browser's entry point.

// No unsafe code here, whatever an attribute below says: the binary's one
// call into glibc (`allocator`) is a module of the binary, not of this crate.
#![forbid(unsafe_code)]

#[cfg(feature = "ssr")]
pub mod allowed_hosts;
#[cfg(feature = "ssr")]
pub mod assets;
#[cfg(feature = "ssr")]
pub mod change_stream;
#[cfg(feature = "ssr")]
pub mod cluster_scope;
#[cfg(feature = "ssr")]
pub mod cluster_settings;
#[cfg(feature = "ssr")]
pub mod connections;
#[cfg(feature = "ssr")]
pub mod cross_origin;
#[cfg(feature = "ssr")]
pub mod exports;
#[cfg(feature = "ssr")]
pub mod metrics;
#[cfg(feature = "ssr")]
pub mod pipeline;
#[cfg(feature = "ssr")]
pub mod places;
#[cfg(feature = "ssr")]
pub mod readiness;
#[cfg(feature = "ssr")]
pub mod refusal;
#[cfg(feature = "ssr")]
pub mod router;
#[cfg(feature = "ssr")]
pub mod settings;
#[cfg(feature = "ssr")]
pub mod simulator;
#[cfg(feature = "ssr")]
pub mod startup;
#[cfg(feature = "ssr")]
pub mod theme_switch;
#[cfg(feature = "ssr")]
pub mod turns;
#[cfg(feature = "ssr")]
pub mod watched;

/// Called by the generated JS once the WASM is loaded: takes over the
/// server-rendered page without re-rendering it.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    // A panic's message in the browser console helps while developing; a
    // release build leaves the hook (and its formatting code) out.
    #[cfg(debug_assertions)]
    console_error_panic_hook::set_once();
    app::hydrate_page();
}
