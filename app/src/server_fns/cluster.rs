//! The lists most pages read: models, replicas, and the overview's figures
//! with its node table.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::dated::{DatedModel, DatedNode, DatedReplica};
use crate::error::ConsoleError;
use crate::figures::ClusterFigures;
use crate::table::TablePage;

/// The overview: its figures, added up on the server from all four lists,
/// and one page of its node table. The other lists stay on the server: at
/// thousands of replicas they would be most of every refresh's bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OverviewReport {
    pub figures: ClusterFigures,
    pub nodes: TablePage<DatedNode>,
}

/// The page of models that `query` (a table's URL query) shows.
#[server(endpoint = "/list_models")]
pub async fn list_models(
    #[server(default)] query: String,
) -> Result<TablePage<DatedModel>, ConsoleError> {
    // Shown in a live part: in an outage, the last good lists, marked.
    crate::server::page_reads::PageReads::patient(ssr::list_models(query)).await
}

/// The page of replicas that `query` shows; its `model=` keeps one model's.
#[server(endpoint = "/list_replicas")]
pub async fn list_replicas(
    #[server(default)] query: String,
) -> Result<TablePage<DatedReplica>, ConsoleError> {
    // Shown in a live part: in an outage, the last good lists, marked.
    crate::server::page_reads::PageReads::patient(ssr::list_replicas(query)).await
}

/// The overview's figures, and the page of its node table `query` shows.
#[server(endpoint = "/cluster_overview")]
pub async fn cluster_overview(
    #[server(default)] query: String,
) -> Result<OverviewReport, ConsoleError> {
    // Shown in a live part: in an outage, the last good lists, marked.
    crate::server::page_reads::PageReads::patient(ssr::cluster_overview(query)).await
}

#[cfg(feature = "ssr")]
mod ssr {
    use super::*;
    use crate::server::ConsoleContext;
    use crate::table::TableQuery;

    pub async fn list_models(query: String) -> Result<TablePage<DatedModel>, ConsoleError> {
        let cx = ConsoleContext::current()?;
        let lists = &cx.cluster.snapshots;
        let (models, replicas) = tokio::join!(lists.models(), lists.replicas());
        let mut page = TableQuery::parse(&query).page_of(&models?);
        cx.journal.date_models(&cx.cluster.tag.id, &mut page.rows);
        // Without the replicas the page stands; it only cannot say failing.
        if let Ok(replicas) = replicas {
            crate::joins::mark_failing(&mut page.rows, &replicas);
        }
        Ok(page)
    }

    pub async fn list_replicas(query: String) -> Result<TablePage<DatedReplica>, ConsoleError> {
        let cx = ConsoleContext::current()?;
        let mut page = TableQuery::parse(&query).page_of(&cx.cluster.snapshots.replicas().await?);
        cx.journal.date_replicas(&cx.cluster.tag.id, &mut page.rows);
        Ok(page)
    }

    pub async fn cluster_overview(query: String) -> Result<OverviewReport, ConsoleError> {
        let cx = ConsoleContext::current()?;
        let (figures, nodes) = cx.cluster.snapshots.figures().await?;
        let mut page = TableQuery::parse(&query).page_of(&nodes);
        cx.journal.date_nodes(&cx.cluster.tag.id, &mut page.rows);
        Ok(OverviewReport {
            figures: figures.as_ref().clone(),
            nodes: page,
        })
    }
}
