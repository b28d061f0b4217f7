//! The lists most pages read: models, replicas, and everything at once for
//! the overview.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::admin_api::types::{ModelView, NodeView, OrphanView, ReplicaView};
use crate::error::ConsoleError;

/// All four lists, fetched together for the overview.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterSnapshot {
    pub nodes: Vec<NodeView>,
    pub models: Vec<ModelView>,
    pub replicas: Vec<ReplicaView>,
    pub orphans: Vec<OrphanView>,
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
pub async fn cluster_overview() -> Result<ClusterSnapshot, ConsoleError> {
    ssr::cluster_overview().await
}

#[cfg(feature = "ssr")]
mod ssr {
    use super::*;
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

    pub async fn cluster_overview() -> Result<ClusterSnapshot, ConsoleError> {
        let cx = ConsoleContext::current()?;
        let lists = &cx.snapshots;
        let (nodes, models, replicas, orphans) = tokio::join!(
            lists.nodes(),
            lists.models(),
            lists.replicas(),
            lists.orphans(),
        );
        Ok(ClusterSnapshot {
            nodes: nodes?.to_vec(),
            models: models?.to_vec(),
            replicas: replicas?.to_vec(),
            orphans: orphans?.to_vec(),
        })
    }
}
