//! A confirmation dialog driven by the URL (`?confirm=...`), so it renders
//! on the server as well: it opens from a link, with or without JavaScript,
//! and closing it is a link back to the page without the parameter.
//! Focus starts inside it (`autofocus`, which needs no JavaScript); with
//! JavaScript, Tab stays inside it and closing it gives focus back to the
//! link that opened it (see `shortcuts`).

use leptos::prelude::*;

use super::CopyButton;

#[component]
pub fn ConfirmDialog(
    title: String,
    /// Where "Cancel" goes: the same page without the dialog.
    cancel_href: String,
    /// Focus starts on Cancel, not in the form: for an action that cannot
    /// be undone, Enter pressed by habit must not be the one that does it.
    #[prop(optional)]
    focus_cancel: bool,
    children: Children,
) -> impl IntoView {
    // Every dialog says which cluster it acts on, in the cluster's colour.
    let cluster = crate::ui_settings::UiSettings::current().cluster;
    view! {
        <div class="dialog-backdrop">
            <section class="dialog" role="dialog" aria-modal="true" aria-labelledby="dialog-title">
                {cluster.map(|c| view! { <p class="dialog-cluster"><super::ClusterBadge tag=c /></p> })}
                <h2 id="dialog-title">{title}</h2>
                {children()}
                <p class="dialog-cancel">
                    <a href=cancel_href autofocus=focus_cancel>"Cancel"</a>
                </p>
            </section>
        </div>
    }
}

/// The `llmgw ctl` command that does the same, for operators who want to
/// know or script it.
#[component]
pub fn CtlCommand(command: String) -> impl IntoView {
    view! {
        <p class="ctl">
            "Same as " <code>{command.clone()}</code>
            <CopyButton text=command what="the command".to_string() />
        </p>
    }
}
