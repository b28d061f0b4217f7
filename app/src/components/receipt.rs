//! The outcome of the last action, shown where it was taken: read from
//! `?receipt=ID`, which every action redirects to.

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use crate::server_fns::receipts::{Receipt, read_receipt};

#[component]
pub fn ReceiptBanner() -> impl IntoView {
    let params = use_query_map();
    let id = Memo::new(move |_| params.with(|p| p.get("receipt").unwrap_or_default()));
    let receipt = Resource::new(
        move || id.get(),
        |id| async move {
            if id.is_empty() {
                Ok(None)
            } else {
                read_receipt(id).await
            }
        },
    );
    view! {
        <Suspense>
            {move || {
                receipt
                    .get()
                    .and_then(|outcome| outcome.ok().flatten())
                    .map(|r| view! { <ReceiptView receipt=r /> })
            }}
        </Suspense>
    }
}

#[component]
fn ReceiptView(receipt: Receipt) -> impl IntoView {
    let failed = receipt.error.is_some();
    view! {
        <section class="receipt" class:failed=failed role="status" aria-live="polite">
            <h2>{receipt.action.clone()} {if failed { " failed" } else { "" }}</h2>
            {receipt.error.map(|e| view! { <p class="error-message">{e}</p> })}
            <ul>
                {receipt.lines.into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}
                {receipt
                    .failed_lines
                    .into_iter()
                    .map(|l| view! { <li class="refused">{l}</li> })
                    .collect_view()}
            </ul>
            {receipt.note.map(|n| view! { <p class="note">{n}</p> })}
        </section>
    }
}
