//! The tab's title and icon carry the cluster's state, so that a model that
//! stops serving shows in a background tab: "(2) Nodes · llmgw console — 2
//! models not serving", and a red icon (amber when only nodes are in
//! trouble). The figures are the wall's, worked out once a poll and pushed
//! with every heartbeat (see `updates`), so a tab asks nothing for them.

use leptos::prelude::*;
use leptos_meta::Title;

use super::Updates;

/// The `<link rel="icon">` the shell writes, which the pulse repoints.
pub const ICON_ID: &str = "tab-icon";

#[component]
pub fn TabPulse() -> impl IntoView {
    let pulse = Updates::current().pulse;
    // On the server the title says the pulse the page was rendered with. Its
    // formatter runs when the head is written, after the body and outside
    // the render's reactive arena, so it must not read a signal there (one
    // render in a few hundred panicked doing so under load).
    #[cfg(not(feature = "hydrate"))]
    let formatter = {
        let rendered = pulse.get_untracked();
        move |page: String| rendered.title(&page)
    };
    #[cfg(feature = "hydrate")]
    let formatter = {
        Effect::new(move |_| {
            let icon = pulse.get().icon();
            if let Some(link) = document().get_element_by_id(ICON_ID) {
                let _ = link.set_attribute("href", icon);
            }
        });
        move |page: String| pulse.get().title(&page)
    };
    view! { <Title formatter /> }
}
