//! The lists most pages read: models, replicas, and the overview's figures
//! with its node table.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::admin_api::types::{ModelView, NodeView, ReplicaView};
use crate::error::ConsoleError;
use crate::joins::Overview;

/// The overview: its figures, added up on the server from all four lists,
/// and the nodes for its table. The other lists stay on the server: at
/// thousands of replicas they would be most of every refresh's bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OverviewReport {
    pub figures: Overview,
    pub nodes: Vec<NodeView>,
}

#[server(endpoint = "/list_models")]
pub async fn list_models() -> Result<Vec<ModelView>, ConsoleError> {
    ssr::list_models().await
}

/// Every replica, or one model's (`model` empty means every model).
#[server(endpoint = "/list_replicas")]
pub async fn list_replicas(model: String) -> Result<Vec<ReplicaView>, ConsoleError> {
    ssr::list_replicas(model).await
}

#[server(endpoint = "/cluster_overview")]
pub async fn cluster_overview() -> Result<OverviewReport, ConsoleError> {
    ssr::cluster_overview().await
}

#[cfg(feature = "ssr")]
mod ssr {
    use super::*;
    use crate::joins::overview;
    use crate::server::ConsoleContext;

    pub async fn list_models() -> Result<Vec<ModelView>, ConsoleError> {
        let cx = ConsoleContext::current()?;
        Ok(cx.snapshots.models().await?.to_vec())
    }

    pub async fn list_replicas(model: String) -> Result<Vec<ReplicaView>, ConsoleError> {
        let cx = ConsoleContext::current()?;
        let replicas = cx.snapshots.replicas().await?;
        Ok(replicas
            .iter()
            .filter(|r| model.is_empty() || r.model == model)
            .cloned()
            .collect())
    }

    pub async fn cluster_overview() -> Result<OverviewReport, ConsoleError> {
        let cx = ConsoleContext::current()?;
        let lists = &cx.snapshots;
        let (nodes, models, replicas, orphans) = tokio::join!(
            lists.nodes(),
            lists.models(),
            lists.replicas(),
            lists.orphans(),
        );
        let (nodes, models, replicas, orphans) = (nodes?, models?, replicas?, orphans?);
        Ok(OverviewReport {
            figures: overview(&nodes, &models, &replicas, &orphans),
            nodes: nodes.to_vec(),
        })
    }
}
