//! The Content Security Policy. Scripts run only from this console's own
//! files, or inline when they carry the nonce Leptos gives each render (its
//! islands' data and loader do); no `'unsafe-inline'` for scripts, so an
//! injected `<script>` does not run even if some text ever slipped through
//! unescaped. Styles stay inline-capable: Leptos sets style attributes.

use axum::http::{HeaderValue, header};
use leptos::prelude::use_context;

const BASE: &str = "default-src 'self'; img-src 'self' data:; \
    style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; \
    form-action 'self'; object-src 'none'";

/// The port of cargo-leptos's reload socket, when `make dev` runs the console
/// under `cargo leptos watch`; never set in a deployment.
pub fn dev_reload_port() -> Option<u32> {
    std::env::var_os("LEPTOS_WATCH")?;
    std::env::var("LEPTOS_RELOAD_PORT").ok()?.parse().ok()
}

/// The policy for a response; `nonce` is the render's, for a page.
pub fn policy(nonce: Option<&str>) -> String {
    let scripts = match nonce {
        Some(nonce) => format!("script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'"),
        None => "script-src 'self' 'wasm-unsafe-eval'".to_string(),
    };
    // Under `make dev` the page also connects to the reload socket.
    let connect = match dev_reload_port() {
        Some(port) => {
            format!("connect-src 'self' ws://127.0.0.1:{port} ws://localhost:{port}")
        }
        None => "connect-src 'self'".to_string(),
    };
    format!("{BASE}; {scripts}; {connect}")
}

/// Gives the page being rendered the policy that admits its own inline
/// scripts (by their nonce) and no others.
pub fn apply_to_page() {
    let nonce = leptos::nonce::use_nonce();
    let Some(response) = use_context::<leptos_axum::ResponseOptions>() else {
        return;
    };
    if let Ok(value) = HeaderValue::from_str(&policy(nonce.as_deref())) {
        response.insert_header(header::CONTENT_SECURITY_POLICY, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_scripts_run_only_with_the_nonce() {
        let page = policy(Some("abc"));
        assert!(page.contains("script-src 'self' 'nonce-abc' 'wasm-unsafe-eval'"));
        assert!(!policy(None).contains("nonce"));
        for p in [page, policy(None)] {
            let scripts = p
                .split(';')
                .find(|d| d.trim().starts_with("script-src"))
                .expect("a script policy");
            assert!(!scripts.contains("unsafe-inline"), "{p}");
            assert!(p.contains("frame-ancestors 'none'"));
        }
    }
}
