//! `/weights`: cached weights that no model in the catalog needs, per node,
//! and their collection behind a confirmation the server enforces.

use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::admin_api::types::OrphanView;
use crate::components::{ConfirmDialog, CtlCommand, ErrorPanel, PagedTable, ReceiptBanner};
use crate::error::ConsoleError;
use crate::format::{self, file_size};
use crate::live::Live;
use crate::server_fns::weights::{
    CollectPreview, CollectWeights, PreviewCollect, list_orphans, review_collect,
};
use crate::table::{Column, SortKey, TableQuery, TableRow, use_table_query};
use crate::ui_settings::UiSettings;
use crate::urls;

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

impl TableRow for OrphanView {
    const KEY_ATTR: &'static str = "data-node";
    const COLUMNS: &'static [Column<Self>] = &[
        Column::<Self>::new("node", "Node", |o| {
            view! { <a href=urls::node(&o.node)>{o.node.clone()}</a> }.into_any()
        })
        .class("id")
        .sort(|o| SortKey::Text(o.node.clone()))
        .text(|o| o.node.clone()),
        Column::<Self>::new("files", "Files", |o| o.paths.len().into_any())
            .class("num")
            .sort(|o| SortKey::Num(o.paths.len() as i64)),
        Column::<Self>::new("bytes", "Would free", |o| file_size(o.bytes).into_any())
            .class("num")
            .sort(|o| SortKey::num_if(o.bytes > 0, o.bytes)),
        Column::<Self>::new("paths", "Paths", |o| {
            view! {
                <ul>{o.paths.iter().map(|p| view! { <li><code>{p.clone()}</code></li> }).collect_view()}</ul>
            }
            .into_any()
        })
        .class("paths")
        .sort(|o| SortKey::Text(o.paths.join(",")))
        .text(|o| o.paths.join(" ")),
        Column::<Self>::new("actions", "Actions", |o| {
            let read_only = use_context::<UiSettings>().unwrap_or_default().read_only;
            (!read_only)
                .then(|| view! { <ReviewButton node=o.node.clone() label="Collect…".to_string() danger=false /> })
                .into_any()
        })
        .class("actions")
        .label_hidden(),
    ];

    fn key(&self) -> String {
        self.node.clone()
    }
}

#[component]
fn OrphanTable(orphans: Vec<OrphanView>, query: Memo<TableQuery>) -> impl IntoView {
    let orphans: Vec<OrphanView> = orphans
        .into_iter()
        .filter(|o| !o.paths.is_empty())
        .collect();
    if orphans.is_empty() {
        return view! {
            <p class="empty">"Nothing to reclaim: every file llmgw fetched is still wanted by a model in the catalog."</p>
        }
        .into_any();
    }
    let read_only = use_context::<UiSettings>().unwrap_or_default().read_only;
    let total = orphans.len();
    let total_bytes: i64 = orphans.iter().map(|o| o.bytes.max(0)).sum();
    let total_files: usize = orphans.iter().map(|o| o.paths.len()).sum();
    let page = query.with(|q| q.page_of(&orphans));
    view! {
        // A <div>, not a <p>: a form inside a paragraph would end it in the
        // browser's parser, and the live document's patches would no longer
        // match the server's markup.
        <div class="total">
            <p>
                <strong>{file_size(total_bytes)}</strong>
                {format!(" in {} on {} would be freed.", format::count(total_files, "file", "files"), format::count(total, "node", "nodes"))}
            </p>
            {(!read_only).then(|| view! { <ReviewButton node=String::new() label="Collect on every node…".to_string() danger=true /> })}
        </div>
        <PagedTable page query class="data weights" noun="nodes" one="node" empty="" />
    }
    .into_any()
}

/// Asks the server to list exactly what a collection on `node` (empty: every
/// node) would delete and to sign a confirmation of it; the answer is the
/// dialog showing both. A form, so that it works without JavaScript and no
/// page render hands out a confirmation by itself.
#[component]
fn ReviewButton(node: String, label: String, danger: bool) -> impl IntoView {
    let name = if node.is_empty() {
        "Collect on every node".to_string()
    } else {
        format!("Collect on {node}")
    };
    view! {
        <form method="post" action=PreviewCollect::PATH class="inline">
            <input type="hidden" name="node" value=node />
            <button type="submit" class:danger=danger aria-label=name>{label}</button>
        </form>
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
            <ConfirmDialog title cancel_href="/weights".to_string()>
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
        <ConfirmDialog title cancel_href="/weights".to_string()>
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
    let ctl = if preview.scope.is_empty() {
        format::ctl_command(&["weights", "--collect"])
    } else {
        format::ctl_command(&["weights", "--collect", "--node", &preview.scope])
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
        <p class="muted">
            {format!("This confirmation is for exactly this list and expires in {} s.", preview.expires_in_seconds)}
        </p>
        <form method="post" action=CollectWeights::PATH class="confirm-form">
            <input type="hidden" name="node" value=preview.scope.clone() />
            <input type="hidden" name="token" value=preview.token.clone() />
            <input type="hidden" name="back" value="/weights" />
            <button type="submit" class="danger">
                {format!("Delete {} ({})", format::count(preview.files, "file", "files"), file_size(preview.bytes))}
            </button>
        </form>
    }
    .into_any()
}
