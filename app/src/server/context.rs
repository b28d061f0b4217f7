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
use super::change_feed::{Beat, Sources};
use super::clusters::{Cluster, Clusters, InCluster};
use super::signing::Signer;
use super::snapshots::Snapshots;
use crate::audit_record::Outcome;
use crate::cluster_tag::ClusterTag;
use crate::error::ConsoleError;
use crate::server::admin_client::{
    Actor, ChangeAuthorized, ChangePermitted, ChangePolicy, Identity,
};
use crate::ui_settings::UiSettings;
use crate::urls::ClusterBase;

#[derive(Clone, Debug)]
pub struct ConsoleContext {
    /// Every cluster this console shows.
    pub clusters: Arc<Clusters>,
    /// The cluster the request is about: what its address names, else the
    /// first. Its admin API, lists, wall and change feed are the only ones
    /// the request's functions reach.
    pub cluster: Arc<Cluster>,
    pub ui: UiSettings,
    /// The header an authenticating proxy in front of the console sets to the
    /// operator's name.
    pub actor_header: Option<HeaderName>,
    /// The peers that header is believed from: anyone else could send it and
    /// claim to be anyone.
    pub trusted_proxies: Vec<IpNet>,
    /// Refuse changes that come without a user.
    pub require_user: bool,
    /// Signs what the browser carries back: confirmations and receipts;
    /// for a request, signing for its cluster only.
    pub signer: Signer,
    /// Confirmations for collecting orphaned weights, signed by `signer`.
    pub confirmations: Confirmations,
    /// One audit for every cluster; each record names its cluster.
    pub audit: Arc<AuditLog>,
    /// What the app counts for `/metrics` (the admin APIs' calls).
    pub meters: Arc<super::meters::Meters>,
    /// `/metrics` gives each node's figures too (`--metrics-per-node`).
    pub metrics_per_node: bool,
    /// The journal: whether its database answers, and what pages read of it.
    pub journal: Arc<super::journal::Journal>,
}

impl ConsoleContext {
    /// The context of the request being served.
    pub fn current() -> Result<Self, ConsoleError> {
        let cx = use_context::<Self>().ok_or_else(|| {
            ConsoleError::Internal("the console's request context is missing".into())
        })?;
        // The router provides the context already about the request's
        // cluster; should it ever be provided before the request is, the
        // request's own address still decides.
        let scope = use_context::<Parts>().and_then(|p| p.extensions.get::<InCluster>().cloned());
        let agrees = match (&scope, &cx.ui.cluster) {
            (Some(s), Some(c)) => s.0.tag.id == c.id,
            (None, None) => true,
            _ => false,
        };
        Ok(if agrees {
            cx
        } else {
            cx.for_request(scope.as_ref())
        })
    }

    /// The context of a request about `scope` (the cluster its address
    /// names), or about no one cluster. Everything a request can reach
    /// is its cluster's, and what it signs is valid for that cluster
    /// alone: a function added tomorrow gets both without a line of its
    /// own.
    pub fn for_request(&self, scope: Option<&InCluster>) -> Self {
        let cluster = scope.map_or_else(|| self.clusters.first().clone(), |s| s.0.clone());
        let mut cx = self.clone();
        cx.signer = self.signer.scoped(&cluster.tag.id);
        cx.confirmations = self.confirmations.scoped(&cluster.tag.id);
        cx.ui.read_only = self.ui.read_only || cluster.read_only;
        cx.ui.admin_api = cluster.admin_api.address().to_string();
        cx.ui.cluster = scope.map(|s| s.0.tag.clone());
        cx.cluster = cluster;
        cx
    }

    /// The other clusters where `has` finds the object a page is about, in
    /// what they last listed (nothing is asked for it): a node or model
    /// page offers the same name elsewhere only where it exists.
    pub fn elsewhere(&self, has: impl Fn(&Snapshots) -> bool) -> Vec<ClusterTag> {
        self.clusters
            .iter()
            .filter(|c| c.tag.id != self.cluster.tag.id && has(&c.snapshots))
            .map(|c| c.tag.clone())
            .collect()
    }

    /// The clusters a page shows: its own; on a page about no one cluster,
    /// those its address lists (`clusters=eu,us`), or every one.
    pub fn shown_clusters(&self, query: Option<&str>) -> Vec<Arc<Cluster>> {
        if self.ui.cluster.is_some() || !self.clusters.are_several() {
            return vec![self.cluster.clone()];
        }
        let listed = query
            .into_iter()
            .flat_map(|q| q.split('&'))
            .find_map(|pair| pair.strip_prefix("clusters="))
            .map(|ids| {
                crate::cluster_tag::listed_ids(
                    &crate::urls::decode_component(ids),
                    self.clusters.len(),
                )
            });
        match listed {
            Some(ids) => ids
                .iter()
                .filter_map(|id| self.clusters.get(id).cloned())
                .collect(),
            None => self.clusters.iter().cloned().collect(),
        }
    }

    /// The audit records a request's page shows: its cluster's, and those
    /// of attempts refused before they named a cluster. Each cluster's
    /// audit is its own.
    pub fn audit_records(&self) -> Vec<crate::audit_record::AuditRecord> {
        let mut records = crate::audit_record::one_per_attempt(self.audit.recent());
        if let Some(page) = &self.ui.cluster {
            records.retain(|r| r.cluster.as_ref().is_none_or(|c| *c == page.id));
        }
        records
    }

    /// The heartbeat a page of `shown` clusters is rendered at: what its
    /// change stream will say, so that it reads again only on news.
    pub fn heartbeat_of(shown: &[Arc<Cluster>]) -> Option<crate::heartbeat::Heartbeat> {
        shown
            .iter()
            .filter_map(|c| c.changes.current())
            .reduce(|all, h| all.merge(h))
    }

    /// Where the request's links start: its cluster's addresses, or none.
    pub fn cluster_base(&self) -> ClusterBase {
        ClusterBase(
            self.ui
                .cluster
                .as_ref()
                .map(|c| c.base())
                .unwrap_or_default()
                .into(),
        )
    }

    /// A new listener to the cluster's change feed.
    pub fn listen_for_changes(&self) -> tokio::sync::watch::Receiver<Beat> {
        listen_to(&self.cluster, &self.audit)
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
            record.cluster = Some(self.cluster.tag.id.clone());
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

    /// Attaches what the current attempt asks, once checked, for the
    /// journal.
    pub fn audit_asked(&self, asked: crate::audit_record::Asked) {
        if let Some(draft) = self.audit_draft() {
            draft.asked(asked);
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

/// A new listener to `cluster`'s change feed; its poller starts with the
/// first one.
pub fn listen_to(cluster: &Cluster, audit: &Arc<AuditLog>) -> tokio::sync::watch::Receiver<Beat> {
    cluster.changes.listen(|| Sources {
        lists: cluster.snapshots.clone(),
        wall: cluster.wall.clone(),
        audit: audit.clone(),
    })
}

/// Whether `header` names more than one user: sent twice, or a list
/// (`mallory, alice`), which a proxy that appends rather than replaces
/// makes of the client's own name and the user's.
pub fn names_several(headers: &axum::http::HeaderMap, header: &HeaderName) -> bool {
    let mut values = headers.get_all(header).iter();
    match (values.next(), values.next()) {
        (Some(one), None) => one.as_bytes().contains(&b','),
        (None, _) => false,
        (Some(_), Some(_)) => true,
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
    let claimed = header
        .filter(|h| !names_several(&parts.headers, h))
        .and_then(|h| parts.headers.get(h)?.to_str().ok());
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
        let list = parts(
            &[("x-forwarded-user", "mallory, alice")],
            Some("127.0.0.1:1"),
        );
        assert_eq!(identity_of(Some(&list), Some(&header), &trusted).user, None);
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
