//! Orphaned weights: the list; a preview, asked for with a POST, that signs
//! a confirmation of exactly what it lists and sends the browser to the
//! dialog showing it; and the collection that checks it.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::admin_api::types::OrphanView;
use crate::error::ConsoleError;

#[server(endpoint = "/list_orphans")]
pub async fn list_orphans() -> Result<Vec<OrphanView>, ConsoleError> {
    // Shown in a live part: in an outage, the last good lists, marked.
    crate::server::page_reads::PageReads::patient(ssr::list_orphans()).await
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
    /// False when the orphans changed since the confirmation was issued:
    /// what the operator would confirm is not what they asked to review.
    pub unchanged: bool,
}

/// Signs a confirmation for what a collection on `node` (empty: every node)
/// would delete now, and sends the browser to the dialog that shows it. A
/// POST, so that no page render hands out a confirmation by itself.
#[server(endpoint = "/preview_collect")]
pub async fn preview_collect(node: String) -> Result<(), ConsoleError> {
    ssr::preview_collect(node).await
}

/// What the confirmation `token` covers, checked against the orphans now.
#[server(endpoint = "/review_collect")]
pub async fn review_collect(node: String, token: String) -> Result<CollectPreview, ConsoleError> {
    ssr::review_collect(node, token).await
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
    use super::*;
    use crate::audit_record::Asked;
    use crate::format::file_size;
    use crate::server::ConsoleContext;
    use crate::server::confirmations::path_set;
    use crate::server::input::{self, ReturnPath};
    use crate::server::signing::unix_now;
    use crate::server_fns::receipts::{Receipt, finish};
    use crate::urls;

    pub async fn list_orphans() -> Result<Vec<OrphanView>, ConsoleError> {
        let cx = ConsoleContext::current()?;
        Ok(cx.cluster.snapshots.orphans().await?.to_vec())
    }

    /// What a collection on `node` (empty: every node) would ask for, as
    /// the admin API lists it now.
    async fn in_scope(cx: &ConsoleContext, node: &str) -> Result<Vec<OrphanView>, ConsoleError> {
        Ok(cx
            .cluster
            .snapshots
            .orphans_now()
            .await?
            .iter()
            .filter(|o| !o.paths.is_empty() && (node.is_empty() || o.node == node))
            .cloned()
            .collect())
    }

    pub async fn preview_collect(node: String) -> Result<(), ConsoleError> {
        let scope = input::optional_name("node id", &node)?;
        let cx = ConsoleContext::current()?;
        // A confirmation is only handed out where a collection may run.
        cx.authorize_change()?;
        let orphans = in_scope(&cx, &node).await?;
        let token = cx
            .confirmations
            .issue(&node, &path_set(&orphans), unix_now())?;
        leptos_axum::redirect(&urls::collect_dialog(scope, Some(&token)));
        Ok(())
    }

    pub async fn review_collect(
        node: String,
        token: String,
    ) -> Result<CollectPreview, ConsoleError> {
        input::optional_name("node id", &node)?;
        let cx = ConsoleContext::current()?;
        // A token this console did not sign costs nothing upstream.
        let checked = cx.confirmations.check(&token, &node, unix_now())?;
        let orphans = in_scope(&cx, &node).await?;
        let verified = checked.against(&path_set(&orphans), unix_now());
        Ok(CollectPreview {
            scope: node,
            files: orphans.iter().map(|o| o.paths.len()).sum(),
            bytes: orphans.iter().map(|o| o.bytes.max(0)).sum(),
            orphans,
            token,
            expires_in_seconds: verified.expires_in.as_secs(),
            unchanged: verified.unchanged,
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
        cx.audit_asked(Asked::CollectWeights {
            node: scope_node.map(str::to_string),
        });
        // Named only when listed: the receipt speaks the console's words.
        let listed = match scope_node {
            None => true,
            Some(id) => cx
                .cluster
                .snapshots
                .nodes()
                .await
                .is_ok_and(|nodes| nodes.iter().any(|n| n.id == id)),
        };
        let scope = match scope_node {
            _ if !listed => "a node this console does not list",
            Some(id) => id,
            None => "every node",
        };
        let action = format!("Collect orphaned weights on {scope}");
        cx.audit_describe(&action);
        let permitted = cx.authorize_change()?;
        let checked = cx.confirmations.check(&token, &node, unix_now())?;
        // What would be deleted now must be exactly what was confirmed.
        let current = path_set(&in_scope(&cx, &node).await?);
        cx.audit_target(
            "paths",
            current
                .iter()
                .map(|(node, path)| format!("{node}:{path}"))
                .collect::<Vec<_>>(),
        );
        if !checked.against(&current, unix_now()).unchanged {
            return Err(ConsoleError::ListChanged);
        }
        let change = cx.record_sending(permitted)?;
        let outcome = cx
            .cluster
            .admin_api
            .collect_weights(&change, scope_node)
            .await;
        cx.cluster.snapshots.changed();
        let receipt = match outcome {
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
                    undo: None,
                }
            }
            Err(e) => Receipt::refused(action, &ConsoleError::from(e)),
        };
        finish(receipt, &back)
    }
}
