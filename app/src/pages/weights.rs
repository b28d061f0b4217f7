//! `/weights`: cached weights that no model in the catalog needs, per node,
//! and their collection behind a confirmation the server enforces.

use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::components::{ConfirmDialog, CtlCommand, ReceiptBanner, ReviewButton};
use crate::error::ConsoleError;
use crate::format::{self, file_size};
use crate::live::ErrorPanel;
use crate::live::Live;
use crate::server_fns::weights::{
    CollectPreview, CollectWeights, PreviewCollect, list_orphans, review_collect,
};
use crate::table::use_table_query;
use crate::tables::OrphanTable;

#[component]
pub fn WeightsPage() -> impl IntoView {
    let orphans = Resource::new(|| (), |_| list_orphans());
    let query = use_table_query();
    view! {
        <Title text=crate::site_map::WEIGHTS.title />
        <h1>"Orphaned weights"</h1>
        <p class="lede">
            "Weights llmgw downloaded for models that are no longer in the catalog. "
            "Files an operator put on a node are never listed, and each node checks every path "
            "again before deleting it."
        </p>
        <ReceiptBanner />
        <CollectDialog />
        <Live resource=orphans render={move |orphans| view! { <OrphanTable orphans query /> }} />
    }
}

/// `?confirm=collect[&node=ID]&token=…`: what the signed confirmation
/// covers. Without a token (an old link), it offers to list it.
#[component]
fn CollectDialog() -> impl IntoView {
    let params = use_query_map();
    let request = Memo::new(move |_| {
        params.with(|p| {
            (p.get("confirm").as_deref() == Some("collect")).then(|| {
                (
                    p.get("node").unwrap_or_default(),
                    p.get("token").unwrap_or_default(),
                )
            })
        })
    });
    move || {
        request
            .get()
            .map(|(node, token)| view! { <CollectConfirm node token /> })
    }
}

#[component]
fn CollectConfirm(node: String, token: String) -> impl IntoView {
    let title = if node.is_empty() {
        "Collect orphaned weights on every node?".to_string()
    } else {
        format!("Collect orphaned weights on {node}?")
    };
    if token.is_empty() {
        return view! {
            <ConfirmDialog title cancel_href=crate::urls::scoped("/weights") focus_cancel=true>
                <p>"The console lists exactly what would be deleted, and you confirm that list."</p>
                <ReviewButton node label="List what would be deleted".to_string() danger=false />
            </ConfirmDialog>
        }
        .into_any();
    }
    let preview = {
        let (node, token) = (node.clone(), token.clone());
        Resource::new(|| (), move |_| review_collect(node.clone(), token.clone()))
    };
    view! {
        <ConfirmDialog title cancel_href=crate::urls::scoped("/weights") focus_cancel=true>
            <Suspense fallback=|| view! { <p class="loading">"Listing exactly what would be asked for…"</p> }>
                {move || {
                    let node = node.clone();
                    preview.get().map(|outcome| match outcome {
                        Ok(p) if p.unchanged => view! { <CollectPreviewView preview=p /> }.into_any(),
                        Ok(_) => view! {
                            <ErrorPanel error=ConsoleError::ListChanged />
                            <ReviewButton node label="Review it again".to_string() danger=false />
                        }
                        .into_any(),
                        Err(error) => view! {
                            <ErrorPanel error />
                            <ReviewButton node label="Review it again".to_string() danger=false />
                        }
                        .into_any(),
                    })
                }}
            </Suspense>
        </ConfirmDialog>
    }
    .into_any()
}
#[component]
fn CollectPreviewView(preview: CollectPreview) -> impl IntoView {
    if preview.files == 0 {
        return view! { <p class="empty">"Nothing to reclaim here."</p> }.into_any();
    }
    let server = crate::ui_settings::UiSettings::current().admin_api;
    // The node as part of its flag (`--node=NAME`): a name beginning with
    // a dash is never read as a flag of its own.
    let ctl = if preview.scope.is_empty() {
        format::ctl_command_on(&server, &["weights", "--collect"], &[])
    } else {
        let node = format!("--node={}", preview.scope);
        format::ctl_command_on(&server, &["weights", "--collect", &node], &[])
    };
    view! {
        <p>
            {format!(
                "The console will ask {} to delete {}, {} in all. Each node checks every path again and may refuse.",
                format::count(preview.orphans.len(), "node", "nodes"),
                format::count(preview.files, "file", "files"),
                file_size(preview.bytes)
            )}
        </p>
        <ul class="collect-list">
            {preview
                .orphans
                .iter()
                .map(|o| {
                    view! {
                        <li>
                            <strong>{o.node.clone()}</strong>
                            {format!(": {}, {}", format::count(o.paths.len(), "file", "files"), file_size(o.bytes))}
                            <ul>{o.paths.iter().map(|p| view! { <li><code>{p.clone()}</code></li> }).collect_view()}</ul>
                        </li>
                    }
                })
                .collect_view()}
        </ul>
        <CtlCommand command=ctl />
        // Counted down in the browser (`live::countdown`); past its end the
        // delete button is disabled and the way on is a fresh review.
        <p class="muted countdown" data-expires-in=preview.expires_in_seconds.to_string()>
            "This confirmation is for exactly this list and expires in "
            <span class="left">{format::left(preview.expires_in_seconds as i64)}</span>
            "."
        </p>
        <form method="post" action=crate::urls::scoped(PreviewCollect::PATH) class="inline review-again">
            <input type="hidden" name="node" value=preview.scope.clone() />
            <button type="submit">"Review again"</button>
            <span class="muted">" (lists the orphans anew, with a fresh confirmation)"</span>
        </form>
        <form method="post" action=crate::urls::scoped(CollectWeights::PATH) class="confirm-form">
            <input type="hidden" name="node" value=preview.scope.clone() />
            <input type="hidden" name="token" value=preview.token.clone() />
            <input type="hidden" name="back" value=crate::urls::scoped("/weights") />
            <button type="submit" class="danger">
                {format!("Delete {} ({})", format::count(preview.files, "file", "files"), file_size(preview.bytes))}
            </button>
        </form>
    }
    .into_any()
}
