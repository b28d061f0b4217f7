//! Orphaned weights: the list, a preview that issues a one-time confirmation,
//! and the collection that spends it.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::admin_api::types::OrphanView;
use crate::error::ConsoleError;

#[server(endpoint = "/list_orphans")]
pub async fn list_orphans() -> Result<Vec<OrphanView>, ConsoleError> {
    ssr::list_orphans().await
}

/// Exactly what a collection would ask for, and the token that confirms it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CollectPreview {
    /// The node, or empty for every node.
    pub scope: String,
    pub orphans: Vec<OrphanView>,
    pub files: usize,
    pub bytes: i64,
    pub token: String,
    pub expires_in_seconds: u64,
}

/// `node` empty means every node.
#[server(endpoint = "/preview_collect")]
pub async fn preview_collect(node: String) -> Result<CollectPreview, ConsoleError> {
    ssr::preview_collect(node).await
}

#[server(endpoint = "/collect_weights")]
pub async fn collect_weights(
    node: String,
    token: String,
    back: Option<String>,
) -> Result<(), ConsoleError> {
    ssr::collect_weights(node, token, back).await
}

#[cfg(feature = "ssr")]
mod ssr {
    use std::time::Instant;

    use super::*;
    use crate::format::file_size;
    use crate::server::ConsoleContext;
    use crate::server::confirmations::path_set;
    use crate::server::input::{self, ReturnPath};
    use crate::server_fns::receipts::{Receipt, finish};

    pub async fn list_orphans() -> Result<Vec<OrphanView>, ConsoleError> {
        let cx = ConsoleContext::current()?;
        Ok(cx.admin_api.list_orphans(&cx.actor()).await?)
    }

    fn in_scope(orphans: Vec<OrphanView>, node: &str) -> Vec<OrphanView> {
        orphans
            .into_iter()
            .filter(|o| !o.paths.is_empty() && (node.is_empty() || o.node == node))
            .collect()
    }

    pub async fn preview_collect(node: String) -> Result<CollectPreview, ConsoleError> {
        input::optional_name("node id", &node)?;
        let cx = ConsoleContext::current()?;
        // A preview issues what a collection spends: only where one may run.
        cx.authorize_change()?;
        let orphans = in_scope(cx.admin_api.list_orphans(&cx.actor()).await?, &node);
        let token = cx
            .confirmations
            .issue(&node, path_set(&orphans), Instant::now())?;
        Ok(CollectPreview {
            scope: node,
            files: orphans.iter().map(|o| o.paths.len()).sum(),
            bytes: orphans.iter().map(|o| o.bytes.max(0)).sum(),
            orphans,
            token,
            expires_in_seconds: cx.confirmations.ttl().as_secs(),
        })
    }

    pub async fn collect_weights(
        node: String,
        token: String,
        back: Option<String>,
    ) -> Result<(), ConsoleError> {
        let scope_node = input::optional_name("node id", &node)?;
        let back = ReturnPath::from_form(back.as_deref(), "/weights")?;
        let cx = ConsoleContext::current()?;
        let change = cx.authorize_change()?;
        let actor = change.actor();
        // What would be deleted now must be exactly what was confirmed.
        let current = in_scope(cx.admin_api.list_orphans(actor).await?, &node);
        cx.confirmations
            .redeem(&token, &node, &path_set(&current), Instant::now())?;
        let scope = scope_node.unwrap_or("every node");
        tracing::info!(%actor, %scope, files = path_set(&current).len(), "collecting orphaned weights");
        let action = format!("Collect orphaned weights on {scope}");
        let receipt = match cx.admin_api.collect_weights(&change, scope_node).await {
            Ok(results) => {
                let mut lines = Vec::new();
                let mut failed_lines = Vec::new();
                let mut requested = 0;
                for r in &results {
                    if r.error.is_empty() {
                        requested += r.bytes.max(0);
                        lines.push(format!(
                            "{}: asked to remove {} files, {}",
                            r.node,
                            r.files,
                            file_size(r.bytes)
                        ));
                    } else {
                        failed_lines.push(format!("{}: {}", r.node, r.error));
                    }
                }
                tracing::info!(%actor, %scope, nodes = results.len(), refused = failed_lines.len(), "collection requested");
                Receipt {
                    action,
                    error: None,
                    note: Some(if results.is_empty() {
                        "Nothing to reclaim.".to_string()
                    } else {
                        format!(
                            "{} requested. Each node checks every path again before deleting it, \
                             and may refuse.",
                            file_size(requested)
                        )
                    }),
                    lines,
                    failed_lines,
                }
            }
            Err(e) => {
                tracing::warn!(%actor, %scope, error = %e, "collection failed");
                Receipt {
                    action,
                    error: Some(ConsoleError::from(e).to_string()),
                    lines: Vec::new(),
                    failed_lines: Vec::new(),
                    note: None,
                }
            }
        };
        finish(receipt, &back)
    }
}
