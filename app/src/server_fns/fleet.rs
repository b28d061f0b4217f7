//! The overview of several clusters: a line per cluster and one list of
//! every model not serving anywhere, from what each cluster last read.
//! It never waits for a cluster: a slow or unreachable one is shown with
//! the age of what is known of it, or the reason nothing is.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::cluster_tag::ClusterTag;
use crate::error::ConsoleError;
use crate::wall::WallView;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FleetReport {
    pub clusters: Vec<ClusterGlance>,
}

/// One cluster, as last read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterGlance {
    pub tag: ClusterTag,
    /// How old its figures are; none: never read.
    pub age_seconds: Option<u64>,
    /// Why it could not be read, the last time it was asked.
    pub error: Option<String>,
    /// Its wall's figures as last read, kept while it fails (without the
    /// lists and trends this page does not show).
    pub figures: Option<WallView>,
}

#[server(endpoint = "/fleet_overview")]
pub async fn fleet_overview() -> Result<FleetReport, ConsoleError> {
    ssr::fleet_overview().await
}

#[cfg(feature = "ssr")]
mod ssr {
    use super::*;
    use crate::server::ConsoleContext;

    pub async fn fleet_overview() -> Result<FleetReport, ConsoleError> {
        let cx = ConsoleContext::current()?;
        let now = crate::server::signing::unix_now() as i64;
        let glances = cx.clusters.iter().map(|cluster| async move {
            let known = cluster.wall_as_known().await;
            ClusterGlance {
                tag: cluster.tag.clone(),
                age_seconds: known
                    .view
                    .as_ref()
                    .map(|v| now.saturating_sub(v.taken_at).max(0) as u64),
                error: known.error,
                figures: known.view.map(|view| WallView {
                    troubled: Vec::new(),
                    trends: Vec::new(),
                    ..view.as_ref().clone()
                }),
            }
        });
        Ok(FleetReport {
            clusters: futures_util::future::join_all(glances).await,
        })
    }
}
