//! Nodes: the list, one node's report, and changes of state.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::admin_api::types::TargetState;
use crate::dated::{DatedNode, DatedReplica};
use crate::error::ConsoleError;
use crate::fixes::Surroundings;
use crate::joins::{DrainPreview, NodeRejection};
use crate::table::TablePage;

/// The page of nodes that `query` (a table's URL query) shows.
#[server(endpoint = "/list_nodes")]
pub async fn list_nodes(
    #[server(default)] query: String,
) -> Result<TablePage<DatedNode>, ConsoleError> {
    // Shown in a live part: in an outage, the last good lists, marked.
    crate::server::page_reads::PageReads::patient(ssr::list_nodes(query)).await
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeReport {
    /// `None` when the control plane does not list the node.
    pub node: Option<DatedNode>,
    /// The replicas with a shard on it: what a drain would move.
    pub replicas: Vec<DatedReplica>,
    pub rejections: Vec<NodeRejection>,
    /// Models whose explanation could not be read, with why: their
    /// rejections are missing from `rejections`, and the page says so.
    pub unexplained: Vec<(String, String)>,
    /// While explanations are still being read: how many of how many.
    pub gathering: Option<(usize, usize)>,
    /// What the fixes beside its rejections are worked out from.
    pub around: Surroundings,
    /// The other clusters that list a node of the same name.
    pub also_in: Vec<crate::cluster_tag::ClusterTag>,
}

#[server(endpoint = "/inspect_node")]
pub async fn inspect_node(id: String) -> Result<NodeReport, ConsoleError> {
    // Shown in a live part: in an outage, the last good lists, marked.
    crate::server::page_reads::PageReads::patient(ssr::node_report(id)).await
}

/// What draining `node` would move, and whether each model keeps serving:
/// from the model and replica lists alone, never the explanations.
#[server(endpoint = "/preview_drain")]
pub async fn preview_drain(node: String) -> Result<DrainPreview, ConsoleError> {
    ssr::preview_drain(node).await
}

/// Asks llmgw to put `node` in `state`. Refused unless `confirm` is set:
/// the page always asks first, so only a hand-made request arrives without
/// it. `back` is the page to return to with the receipt.
/// `reason` is the operator's line for a cordon or drain: llmgw has nowhere
/// to keep it, so the journal keeps it (with the audit's record).
#[server(endpoint = "/set_node_state")]
pub async fn set_node_state(
    node: String,
    state: TargetState,
    confirm: Option<String>,
    back: Option<String>,
    #[server(default)] reason: Option<String>,
) -> Result<(), ConsoleError> {
    ssr::set_node_state(
        node,
        state,
        confirm.is_some_and(|c| c == "yes"),
        back,
        reason,
    )
    .await
}

#[cfg(feature = "ssr")]
mod ssr {
    use super::*;
    use crate::audit_record::Asked;
    use crate::dated::Dated;
    use crate::fixes::Explained;
    use crate::joins::drain_preview;
    use crate::server::ConsoleContext;
    use crate::server::input::{self, ReturnPath};
    use crate::server_fns::receipts::{Receipt, Undo, finish};
    use crate::table::TableQuery;

    pub async fn list_nodes(query: String) -> Result<TablePage<DatedNode>, ConsoleError> {
        let cx = ConsoleContext::current()?;
        let nodes = cx.cluster.snapshots.nodes().await?;
        let mut page = TableQuery::parse(&query).page_of(&nodes);
        cx.journal.date_nodes(&cx.cluster.tag.id, &mut page.rows);
        Ok(page)
    }

    pub async fn node_report(id: String) -> Result<NodeReport, ConsoleError> {
        input::name("node id", &id)?;
        let cx = ConsoleContext::current()?;
        let lists = &cx.cluster.snapshots;
        let (nodes, models, replicas, orphans, rejections) = tokio::join!(
            lists.nodes(),
            lists.models(),
            lists.replicas(),
            lists.orphans(),
            lists.rejections(),
        );
        let (nodes, models, replicas, rejections) = (nodes?, models?, replicas?, rejections?);
        // Orphans only add the collection hint; without them the page stands.
        let orphans = orphans.ok();
        let orphans = orphans.as_deref().map_or(&[][..], Vec::as_slice);
        let also_in = cx.elsewhere(|other| {
            other
                .known_nodes()
                .is_some_and(|nodes| nodes.iter().any(|n| n.id == id))
        });
        let mut node = nodes
            .iter()
            .find(|n| n.id == id)
            .cloned()
            .map(Dated::undated);
        cx.journal
            .date_nodes(&cx.cluster.tag.id, node.as_mut_slice());
        let mut here = crate::dated::undated(
            replicas
                .iter()
                .filter(|r| crate::joins::runs_on(r, &id))
                .cloned()
                .collect(),
        );
        cx.journal.date_replicas(&cx.cluster.tag.id, &mut here);
        let found = rejections.of(&id);
        let mut named: Vec<&str> = found.iter().map(|f| f.model.as_str()).collect();
        named.sort_unstable();
        named.dedup();
        let theirs = rejections.of_models(&named);
        // One pass over the catalog for the profiles of the models named,
        // not one per model: hundreds of them name a node at 20,000 nodes.
        let profiles: crate::fast_hash::FastMap<&str, &[String]> = models
            .iter()
            .filter(|m| named.binary_search(&m.name.as_str()).is_ok())
            .map(|m| (m.name.as_str(), m.profiles.as_slice()))
            .collect();
        let explained: Vec<Explained<'_>> = theirs
            .iter()
            .map(|(model, all)| Explained {
                model,
                profiles: profiles.get(model.as_str()).copied().unwrap_or_default(),
                rejections: all,
            })
            .collect();
        let mut around = Surroundings::around(&|n| n == id, &nodes, orphans, &replicas, &explained);
        cx.journal.date_nodes(&cx.cluster.tag.id, &mut around.nodes);
        Ok(NodeReport {
            also_in,
            around,
            node,
            replicas: here,
            rejections: found,
            unexplained: rejections.unexplained().to_vec(),
            gathering: rejections.gathering().map(|g| (g.read, g.of)),
        })
    }

    pub async fn preview_drain(node: String) -> Result<DrainPreview, ConsoleError> {
        input::name("node id", &node)?;
        let cx = ConsoleContext::current()?;
        let lists = &cx.cluster.snapshots;
        let (nodes, models, replicas) =
            tokio::join!(lists.nodes(), lists.models(), lists.replicas());
        let nodes = nodes?;
        let mut drain = drain_preview(&node, &nodes, &models?, &replicas?);
        cx.journal
            .date_replicas(&cx.cluster.tag.id, &mut drain.replicas);
        let mut this: Vec<DatedNode> = nodes
            .iter()
            .filter(|n| n.id == node)
            .cloned()
            .map(Dated::undated)
            .collect();
        cx.journal.date_nodes(&cx.cluster.tag.id, &mut this);
        drain.state_since = this.pop().and_then(|n| n.since).and_then(|s| s.state);
        Ok(drain)
    }

    pub async fn set_node_state(
        node: String,
        state: TargetState,
        confirmed: bool,
        back: Option<String>,
        reason: Option<String>,
    ) -> Result<(), ConsoleError> {
        let cx = ConsoleContext::current()?;
        // Everything the request carries is checked before anything is sent.
        let node = input::name("node id", &node)?;
        let asked = |reason| Asked::NodeState {
            node: node.to_string(),
            state: state.as_str().to_string(),
            reason,
        };
        // Named before the reason is read: a reason refused is recorded
        // against its node.
        cx.audit_asked(asked(None));
        let reason = input::note("reason", reason.as_deref())?;
        cx.audit_asked(asked(reason));
        let back = ReturnPath::from_form(back.as_deref(), "/nodes")?;
        let verb = match state {
            TargetState::Ready => "Uncordon",
            TargetState::Cordoned => "Cordon",
            TargetState::Draining => "Drain",
        };
        // The receipt names the node only when the console lists it: a
        // hand-made form must not put its own words in the console's mouth.
        let before = cx
            .cluster
            .snapshots
            .nodes()
            .await
            .ok()
            .and_then(|nodes| nodes.iter().find(|n| n.id == node).map(|n| n.state.clone()));
        let listed = before.is_some();
        let action = if listed {
            format!("{verb} {node}")
        } else {
            format!("{verb} a node this console does not list")
        };
        cx.audit_describe(&action);
        let permitted = cx.authorize_change()?;
        // Every change of state asks first: an uncordon may undo
        // somebody's deliberate hold.
        if !confirmed {
            return Err(ConsoleError::ConfirmationMissing);
        }
        let change = cx.record_sending(permitted)?;
        let outcome = cx
            .cluster
            .admin_api
            .set_node_state(&change, node, state)
            .await;
        cx.cluster.snapshots.changed();
        let receipt = match outcome {
            Ok(change) => Receipt {
                action,
                error: None,
                lines: vec![format!("{} is now {}", change.id, change.state)],
                failed_lines: Vec::new(),
                note: (state == TargetState::Draining).then(|| {
                    "Replicas move off one at a time; each replacement comes up before \
                         the original stops."
                        .to_string()
                }),
                undo: before.and_then(|b| Undo::of(&change.id, &b, state)),
            },
            Err(e) => Receipt::refused(action, &ConsoleError::from(e)),
        };
        finish(receipt, &back)
    }
}
