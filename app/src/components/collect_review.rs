//! The button that asks for a collection's review: the first step of
//! collecting orphaned weights, on the table's rows and in its dialog.

use leptos::prelude::*;
use leptos::server_fn::ServerFn;

use crate::server_fns::weights::PreviewCollect;

/// Asks the server to list exactly what a collection on `node` (empty: every
/// node) would delete and to sign a confirmation of it; the answer is the
/// dialog showing both. A form, so that it works without JavaScript and no
/// page render hands out a confirmation by itself.
#[component]
pub fn ReviewButton(node: String, label: String, danger: bool) -> impl IntoView {
    let name = if node.is_empty() {
        "Collect on every node".to_string()
    } else {
        format!("Collect on {node}")
    };
    view! {
        <form method="post" action=crate::urls::scoped(PreviewCollect::PATH) class="inline">
            <input type="hidden" name="node" value=node />
            <button type="submit" class:danger=danger aria-label=name>{label}</button>
        </form>
    }
}
