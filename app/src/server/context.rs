//! What every server function and server render needs: the admin API client,
//! the settings the page sees, and how to tell who is asking.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::ConnectInfo;
use axum::http::{HeaderName, request::Parts};
use ipnet::IpNet;
use leptos::prelude::use_context;

use super::Confirmations;
use super::audit::{AuditLog, Draft, blank_record};
use super::signing::Signer;
use super::snapshots::Snapshots;
use super::wall_feed::WallFeed;
use crate::admin_api::{
    Actor, AdminApiClient, ChangeAuthorized, ChangePermitted, ChangePolicy, Identity,
};
use crate::audit_record::Outcome;
use crate::error::ConsoleError;
use crate::live::change_feed::{Beat, ChangeFeed, Sources};
use crate::ui_settings::UiSettings;

#[derive(Clone, Debug)]
pub struct ConsoleContext {
    pub admin_api: Arc<AdminApiClient>,
    /// The lists every page reads, polled once for every viewer.
    pub snapshots: Arc<Snapshots>,
    pub ui: UiSettings,
    /// The header an authenticating proxy in front of the console sets to the
    /// operator's name.
    pub actor_header: Option<HeaderName>,
    /// The peers that header is believed from: anyone else could send it and
    /// claim to be anyone.
    pub trusted_proxies: Vec<IpNet>,
    /// Refuse changes that come without a user.
    pub require_user: bool,
    /// Signs what the browser carries back: confirmations and receipts.
    pub signer: Signer,
    /// Confirmations for collecting orphaned weights, signed by `signer`.
    pub confirmations: Confirmations,
    pub audit: Arc<AuditLog>,
    /// The wall screen's figures and trends, shared by every wall.
    pub wall: Arc<WallFeed>,
    /// Tells every open page when the lists move.
    pub changes: Arc<ChangeFeed>,
}

impl ConsoleContext {
    /// The context of the request being served.
    pub fn current() -> Result<Self, ConsoleError> {
        use_context::<Self>().ok_or_else(|| {
            ConsoleError::Internal("the console's request context is missing".into())
        })
    }

    /// A new listener to the change feed.
    pub fn listen_for_changes(&self) -> tokio::sync::watch::Receiver<Beat> {
        self.changes.listen(|| Sources {
            lists: self.snapshots.clone(),
            wall: self.wall.clone(),
            audit: self.audit.clone(),
        })
    }

    /// Who is behind the current request.
    pub fn identity(&self) -> Identity {
        identity_of(
            use_context::<Parts>().as_ref(),
            self.actor_header.as_ref(),
            &self.trusted_proxies,
        )
    }

    /// The name llmgw records beside a change this request makes.
    pub fn actor(&self) -> Actor {
        self.identity().actor()
    }

    /// The permission every change needs; refused on a read-only console,
    /// and without a user when one is required. Hiding a button is not
    /// enforcement: this is.
    pub fn authorize_change(&self) -> Result<ChangePermitted, ConsoleError> {
        let policy = ChangePolicy {
            read_only: self.ui.read_only,
            require_user: self.require_user,
        };
        // A refusal reaches the audit with the answer; see `audit`.
        ChangePermitted::check(policy, &self.identity())
    }

    /// Writes the record of the change about to be sent, and only then
    /// lets it be sent: when the audit cannot take the record, the change
    /// is refused and llmgw is asked nothing.
    pub fn record_sending(
        &self,
        permitted: ChangePermitted,
    ) -> Result<ChangeAuthorized, ConsoleError> {
        let draft = self.audit_draft().unwrap_or_else(|| {
            // Every change the pipeline lets through has a draft; a call
            // from elsewhere is still recorded, under what is known.
            let mut record = blank_record("unlisted change");
            record.actor = permitted.actor().to_string();
            Draft::open(record)
        });
        let written = draft.sending(&self.audit)?;
        Ok(permitted.recorded(written))
    }

    /// The audit record of the call being served: opened by the router for
    /// every call that is not a known read.
    fn audit_draft(&self) -> Option<Draft> {
        use_context::<Parts>()?.extensions.get::<Draft>().cloned()
    }

    /// Records what the current attempt is about, for the audit.
    pub fn audit_target(&self, key: &str, value: impl serde::Serialize) {
        if let Some(draft) = self.audit_draft() {
            draft.target(key, value);
        }
    }

    /// Names the current attempt as the operator would ("Drain gpu-h100-01").
    pub fn audit_describe(&self, description: &str) {
        if let Some(draft) = self.audit_draft() {
            draft.describe(description);
        }
    }

    /// Records how the current attempt ended, as the handler saw it.
    pub fn audit_outcome(&self, outcome: Outcome, reason: Option<String>) {
        if let Some(draft) = self.audit_draft() {
            draft.outcome(outcome, reason);
        }
    }
}

/// The user named by `header` when the request came from a trusted peer,
/// and the peer's address.
pub fn identity_of(
    parts: Option<&Parts>,
    header: Option<&HeaderName>,
    trusted: &[IpNet],
) -> Identity {
    let Some(parts) = parts else {
        return Identity {
            user: None,
            peer: None,
        };
    };
    // An IPv4 client of a dual-stack listener arrives as ::ffff:a.b.c.d;
    // it is the IPv4 address that trusted ranges are written for.
    let peer: Option<IpAddr> = parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(addr)| addr.ip().to_canonical());
    // A name sent twice is not one name: a proxy that appends rather than
    // replaces would pass the client's own first. The pipeline refuses such
    // a request; no one is named here either.
    let claimed = header.and_then(|h| {
        let mut values = parts.headers.get_all(h).iter();
        match (values.next(), values.next()) {
            (Some(one), None) => one.to_str().ok(),
            _ => None,
        }
    });
    let from_proxy = peer.is_some_and(|ip| trusted.iter().any(|net| net.contains(&ip)));
    let user = match claimed {
        Some(name) if from_proxy => Actor::new(name),
        Some(_) => {
            tracing::warn!(
                target: "audit",
                peer = ?peer,
                "ignored a user header from a peer that is not a trusted proxy"
            );
            None
        }
        None => None,
    };
    Identity { user, peer }
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

    fn nets(list: &[&str]) -> Vec<IpNet> {
        list.iter().map(|n| n.parse().expect("cidr")).collect()
    }

    #[test]
    fn the_proxy_header_names_the_operator_only_from_a_trusted_peer() {
        let header = HeaderName::from_static("x-forwarded-user");
        let trusted = nets(&["10.1.0.0/16"]);
        let via_proxy = parts(&[("x-forwarded-user", "ana")], Some("10.1.2.3:5555"));
        let who = identity_of(Some(&via_proxy), Some(&header), &trusted);
        assert_eq!(who.actor().as_str(), "ana");
        let direct = parts(&[("x-forwarded-user", "ana")], Some("10.9.9.9:5555"));
        let who = identity_of(Some(&direct), Some(&header), &trusted);
        assert_eq!(who.user, None);
        assert_eq!(who.actor().as_str(), "llmgw-console (10.9.9.9)");
        let who = identity_of(Some(&via_proxy), None, &trusted);
        assert_eq!(
            who.actor().as_str(),
            "llmgw-console (10.1.2.3)",
            "no header configured"
        );
    }

    #[test]
    fn a_name_sent_twice_names_no_one_and_mapped_peers_are_ipv4() {
        let header = HeaderName::from_static("x-forwarded-user");
        let trusted = nets(&["127.0.0.0/8"]);
        let mut twice = parts(&[("x-forwarded-user", "mallory")], Some("127.0.0.1:1"));
        twice
            .headers
            .append("x-forwarded-user", "alice".parse().expect("value"));
        assert_eq!(
            identity_of(Some(&twice), Some(&header), &trusted).user,
            None
        );
        let mapped = parts(&[("x-forwarded-user", "ana")], Some("[::ffff:127.0.0.1]:1"));
        let who = identity_of(Some(&mapped), Some(&header), &trusted);
        assert_eq!(who.actor().as_str(), "ana");
        assert_eq!(who.peer, Some("127.0.0.1".parse().expect("ip")));
    }

    #[test]
    fn a_blank_or_missing_name_falls_back_never_to_blank() {
        let header = HeaderName::from_static("x-forwarded-user");
        let trusted = nets(&["127.0.0.0/8"]);
        let p = parts(&[("x-forwarded-user", "   ")], Some("127.0.0.1:1"));
        assert_eq!(
            identity_of(Some(&p), Some(&header), &trusted)
                .actor()
                .as_str(),
            "llmgw-console (127.0.0.1)"
        );
        assert_eq!(
            identity_of(None, Some(&header), &trusted).actor().as_str(),
            "llmgw-console"
        );
    }
}
