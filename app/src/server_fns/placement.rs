//! The explain-placement page's data: the explanation joined with the model,
//! its replicas, and what the console knows around every node it names.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::admin_api::types::{ExplainView, ReplicaView};
use crate::dated::DatedModel;
use crate::error::ConsoleError;
#[cfg(feature = "ssr")]
use crate::fixes::Explained;
use crate::fixes::Surroundings;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlacementReport {
    pub explain: ExplainView,
    /// `None` when the catalog no longer lists the model; dated, and
    /// whether it is failing.
    pub model: Option<DatedModel>,
    pub replicas: Vec<ReplicaView>,
    /// The nodes the rejections name, with their live state, orphaned
    /// weights and idle replicas: what the page's fixes are worked out from.
    pub around: Surroundings,
    /// The other clusters whose catalog lists a model of the same name.
    pub also_in: Vec<crate::cluster_tag::ClusterTag>,
    /// How many seconds ago llmgw's explanation was read: the rejections
    /// are that old, the nodes beside them as they are now.
    #[serde(default)]
    pub explained_secs_ago: u64,
}

#[server(endpoint = "/explain_placement")]
pub async fn explain_placement(model: String) -> Result<PlacementReport, ConsoleError> {
    // Shown in a live part: in an outage, the last good lists, marked.
    crate::server::page_reads::PageReads::patient(ssr::explain_placement(model)).await
}

#[cfg(feature = "ssr")]
mod ssr {
    use std::collections::HashSet;

    use super::*;
    use crate::dated::Dated;
    use crate::server::ConsoleContext;
    use crate::server::input;

    pub async fn explain_placement(model: String) -> Result<PlacementReport, ConsoleError> {
        input::name("model name", &model)?;
        let cx = ConsoleContext::current()?;
        let lists = &cx.cluster.snapshots;
        let (explain, models, replicas, nodes, orphans) = tokio::join!(
            lists.explain(&model),
            lists.models(),
            lists.replicas(),
            lists.nodes(),
            lists.orphans(),
        );
        let (explain, replicas) = (explain?, replicas?);
        let explained_secs_ago = lists.explained_ago(&model).map_or(0, |d| d.as_secs());
        // Only what concerns the nodes its rejections name: at thousands of
        // nodes, the rest would be most of the answer and of no use to it.
        let named: HashSet<&str> = explain.rejections.iter().map(|r| r.node.as_str()).collect();
        // Orphans only add the collection hint; without them the page stands.
        let orphans = orphans.ok();
        let orphans = orphans.as_deref().map_or(&[][..], Vec::as_slice);
        let also_in = cx.elsewhere(|other| {
            other
                .known_models()
                .is_some_and(|models| models.iter().any(|m| m.name == model))
        });
        let mut found = models?
            .iter()
            .find(|m| m.name == model)
            .cloned()
            .map(Dated::undated);
        cx.journal
            .date_models(&cx.cluster.tag.id, found.as_mut_slice());
        crate::joins::mark_failing(found.as_mut_slice(), &replicas);
        let profiles = found
            .as_ref()
            .map(|m| m.profiles.clone())
            .unwrap_or_default();
        let mut around = Surroundings::around(
            &|id| named.contains(id),
            &nodes?,
            orphans,
            &replicas,
            &[Explained {
                model: &model,
                profiles: &profiles,
                rejections: &explain.rejections,
            }],
        );
        // Who set each node's state and why: a deliberate one is no fix.
        cx.journal.date_nodes(&cx.cluster.tag.id, &mut around.nodes);
        Ok(PlacementReport {
            explained_secs_ago,
            also_in,
            model: found,
            around,
            replicas: replicas
                .iter()
                .filter(|r| r.model == model)
                .cloned()
                .collect(),
            explain: explain.as_ref().clone(),
        })
    }
}
