//! The outcome of the last action, shown where it was taken: read from
//! `?receipt=ID`, which every action redirects to.

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use leptos::server_fn::ServerFn;

use crate::server_fns::nodes::SetNodeState;
use crate::server_fns::receipts::{Receipt, UNDO_SECONDS, Undo, read_receipt};
use crate::urls;

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
            {receipt.undo.map(undo_form)}
        </section>
    }
}

/// The same action the other way, for a few seconds: a form like the
/// dialog's, back to this page without the receipt.
fn undo_form(undo: Undo) -> AnyView {
    let back = urls::here();
    view! {
        <form method="post" action=urls::scoped(SetNodeState::PATH) class="undo-form">
            <input type="hidden" name="node" value=undo.node.clone() />
            <input type="hidden" name="state" value=undo.state.as_str() />
            <input type="hidden" name="confirm" value="yes" />
            <input type="hidden" name="back" value=back />
            <input type="hidden" name="reason" value="undo" />
            <button type="submit">{format!("Undo: {}", undo.label)}</button>
            <span class="since">{format!(" (offered for {} s)", UNDO_SECONDS)}</span>
        </form>
    }
    .into_any()
}
