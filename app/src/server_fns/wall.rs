//! The wall screen's data: one answer per refresh period for every wall;
//! and for a wall of several clusters, each cluster's as last read.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::cluster_tag::ClusterTag;
use crate::error::ConsoleError;
use crate::wall::WallView;

#[server(endpoint = "/read_wall")]
pub async fn read_wall() -> Result<WallView, ConsoleError> {
    // Shown in a live part: in an outage, the last good lists, marked.
    crate::server::page_reads::PageReads::patient(ssr::read_wall()).await
}

/// One cluster of a wall of several.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterWall {
    pub tag: ClusterTag,
    /// The last view that could be made; none: never read.
    pub view: Option<WallView>,
    /// Why the latest read failed (or the id names no cluster): marked on
    /// this cluster's panels only.
    pub error: Option<String>,
}

/// The walls of `clusters` (ids, comma-separated, as the link lists them),
/// in that order, each as last read: a cluster that hangs holds up no
/// other's panels.
#[server(endpoint = "/read_walls")]
pub async fn read_walls(
    #[server(default)] clusters: String,
) -> Result<Vec<ClusterWall>, ConsoleError> {
    ssr::read_walls(clusters).await
}

#[cfg(feature = "ssr")]
mod ssr {
    use super::*;
    use crate::server::ConsoleContext;

    pub async fn read_wall() -> Result<WallView, ConsoleError> {
        let cx = ConsoleContext::current()?;
        let view = cx.cluster.wall.current(&cx.cluster.snapshots).await?;
        Ok(view.as_ref().clone())
    }

    pub async fn read_walls(clusters: String) -> Result<Vec<ClusterWall>, ConsoleError> {
        let cx = ConsoleContext::current()?;
        let ids = crate::cluster_tag::listed_ids(&clusters, cx.clusters.len());
        let walls = ids.into_iter().map(|id| {
            let cluster = cx.clusters.get(&id).cloned();
            async move {
                let Some(cluster) = cluster else {
                    return ClusterWall {
                        tag: ClusterTag {
                            label: id.clone(),
                            id: id.clone(),
                            colour: None,
                        },
                        view: None,
                        error: Some(format!("this console shows no cluster called {id:?}")),
                    };
                };
                let known = cluster.wall_as_known().await;
                ClusterWall {
                    tag: cluster.tag.clone(),
                    view: known.view.map(|v| v.as_ref().clone()),
                    error: known.error,
                }
            }
        });
        Ok(futures_util::future::join_all(walls).await)
    }
}
