//! The explain-placement page's data: the explanation joined with the model,
//! its replicas, and the live state of every node.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::admin_api::types::{ExplainView, ModelView, NodeView, ReplicaView};
use crate::error::ConsoleError;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlacementReport {
    pub explain: ExplainView,
    /// `None` when the catalog no longer lists the model.
    pub model: Option<ModelView>,
    pub replicas: Vec<ReplicaView>,
    /// The nodes the rejections name, with their live state.
    pub nodes: Vec<NodeView>,
}

#[server(endpoint = "/explain_placement")]
pub async fn explain_placement(model: String) -> Result<PlacementReport, ConsoleError> {
    ssr::explain_placement(model).await
}

#[cfg(feature = "ssr")]
mod ssr {
    use std::collections::HashSet;

    use super::*;
    use crate::server::ConsoleContext;
    use crate::server::input;

    pub async fn explain_placement(model: String) -> Result<PlacementReport, ConsoleError> {
        input::name("model name", &model)?;
        let cx = ConsoleContext::current()?;
        let lists = &cx.snapshots;
        let (explain, models, replicas, nodes) = tokio::join!(
            lists.explain(&model),
            lists.models(),
            lists.replicas(),
            lists.nodes(),
        );
        let explain = explain?;
        // Only the nodes its rejections name: at thousands of nodes, the
        // rest would be most of the answer and of no use to the page.
        let named: HashSet<&str> = explain.rejections.iter().map(|r| r.node.as_str()).collect();
        Ok(PlacementReport {
            model: models?.iter().find(|m| m.name == model).cloned(),
            replicas: replicas?
                .iter()
                .filter(|r| r.model == model)
                .cloned()
                .collect(),
            nodes: nodes?
                .iter()
                .filter(|n| named.contains(n.id.as_str()))
                .cloned()
                .collect(),
            explain: explain.as_ref().clone(),
        })
    }
}
