//! The tab's title and icon carry the cluster's state, so that a model that
//! stops serving shows in a background tab: "(2) Nodes · llmgw console — 2
//! models not serving", and a red icon (amber when only nodes are in
//! trouble). The figures are the wall's, worked out once a poll: the server
//! writes them into the page, and every heartbeat pushes them to the live
//! document (see `follow`), so a tab asks nothing for them.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::ui_settings::UiSettings;

#[component]
pub fn TabPulse() -> impl IntoView {
    // The pulse the page is rendered with; the live document writes the
    // pushed ones in the browser.
    let ui = UiSettings::current();
    let rendered = ui.rendered_pulse();
    let cluster = cluster_named(&ui);
    let formatter = move |page: String| rendered.title(&in_cluster(&page, cluster.as_deref()));
    view! { <Title formatter /> }
}

/// The cluster a page's title names: its label, when the console shows
/// several, so that two tabs of two clusters are told apart.
pub(crate) fn cluster_named(ui: &UiSettings) -> Option<String> {
    ui.cluster
        .as_ref()
        .filter(|_| ui.clusters.len() > 1)
        .map(|c| c.label.clone())
}

/// "Nodes · eu".
pub(crate) fn in_cluster(page: &str, cluster: Option<&str>) -> String {
    match cluster {
        Some(label) => format!("{page} · {label}"),
        None => page.to_string(),
    }
}
