//! What every server function and server render needs: the admin API client,
//! the settings the page sees, and how to tell who is asking.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::ConnectInfo;
use axum::http::{HeaderName, request::Parts};
use leptos::prelude::use_context;

use super::Confirmations;
use crate::admin_api::{Actor, AdminApiClient};
use crate::error::ConsoleError;
use crate::ui_settings::UiSettings;

#[derive(Clone, Debug)]
pub struct ConsoleContext {
    pub admin_api: Arc<AdminApiClient>,
    pub ui: UiSettings,
    /// The header an authenticating proxy in front of the console sets to the
    /// operator's name. Only trusted when configured: otherwise anyone could
    /// claim to be anyone.
    pub actor_header: Option<HeaderName>,
    /// Pending confirmations for collecting orphaned weights.
    pub confirmations: Arc<Confirmations>,
}

impl ConsoleContext {
    /// The context of the request being served.
    pub fn current() -> Result<Self, ConsoleError> {
        use_context::<Self>().ok_or_else(|| {
            ConsoleError::Internal("the console's request context is missing".into())
        })
    }

    /// Refuses a change when the console is read-only. Every mutating server
    /// function calls this first: hiding a button is not enforcement.
    pub fn ensure_writable(&self) -> Result<(), ConsoleError> {
        if self.ui.read_only {
            Err(ConsoleError::ReadOnly)
        } else {
            Ok(())
        }
    }

    /// Who is behind the current request: the proxy's user header when one is
    /// configured and present, otherwise the console with the caller's address.
    pub fn actor(&self) -> Actor {
        let parts = use_context::<Parts>();
        actor_of(parts.as_ref(), self.actor_header.as_ref())
    }
}

pub fn actor_of(parts: Option<&Parts>, header: Option<&HeaderName>) -> Actor {
    let Some(parts) = parts else {
        return Actor::console();
    };
    if let Some(named) = header
        .and_then(|h| parts.headers.get(h))
        .and_then(|v| v.to_str().ok())
        .and_then(Actor::new)
    {
        return named;
    }
    parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .and_then(|ConnectInfo(addr)| Actor::new(&format!("{} ({})", Actor::FALLBACK, addr.ip())))
        .unwrap_or_else(Actor::console)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::Request;

    fn parts(headers: &[(&str, &str)], peer: Option<&str>) -> Parts {
        let mut req = Request::builder();
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let mut req = req.body(()).expect("valid request");
        if let Some(peer) = peer {
            req.extensions_mut()
                .insert(ConnectInfo(peer.parse::<SocketAddr>().expect("valid addr")));
        }
        req.into_parts().0
    }

    #[test]
    fn the_proxy_header_names_the_operator_only_when_configured() {
        let header = HeaderName::from_static("x-forwarded-user");
        let p = parts(&[("x-forwarded-user", "ana")], Some("10.1.2.3:5555"));
        assert_eq!(actor_of(Some(&p), Some(&header)).as_str(), "ana");
        assert_eq!(
            actor_of(Some(&p), None).as_str(),
            "llmgw-console (10.1.2.3)"
        );
    }

    #[test]
    fn a_blank_or_missing_name_falls_back_never_to_blank() {
        let header = HeaderName::from_static("x-forwarded-user");
        let p = parts(&[("x-forwarded-user", "   ")], None);
        assert_eq!(actor_of(Some(&p), Some(&header)).as_str(), "llmgw-console");
        assert_eq!(actor_of(None, Some(&header)).as_str(), "llmgw-console");
    }
}
