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
    let rendered = UiSettings::current().rendered_pulse();
    let formatter = move |page: String| rendered.title(&page);
    view! { <Title formatter /> }
}
