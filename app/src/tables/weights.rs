//! The orphaned weights' table: per node, the files no model in the catalog
//! needs and what collecting them would free, with the total above it.

use leptos::prelude::*;

use crate::admin_api::types::OrphanView;
use crate::components::{PagedTable, ReviewButton};
use crate::format::{self, file_size};
use crate::table::{Cell, Column, Exported, ExportedTable, Field, SortKey, TableQuery, TableRow};
use crate::ui_settings::UiSettings;
use crate::urls;

impl TableRow for OrphanView {
    type Dates = crate::dated::Undated;
    const KEY_ATTR: &'static str = "data-node";
    const EXPORTED_AS: Option<ExportedTable> = Some(ExportedTable::Weights);
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
pub fn OrphanTable(orphans: Vec<OrphanView>, query: Memo<TableQuery>) -> impl IntoView {
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

impl Exported for OrphanView {
    const FIELDS: &'static [Field<Self>] = &[
        Field::new("node", |o| Cell::text(&o.node)),
        Field::new("files", |o| Cell::Int(o.paths.len() as i64)),
        Field::new("bytes", |o| Cell::int_if(o.bytes > 0, o.bytes)),
        Field::new("paths", |o| Cell::list(&o.paths)),
    ];
}
