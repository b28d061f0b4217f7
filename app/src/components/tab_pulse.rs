//! The tab's title and icon carry the cluster's state, so that a model that
//! stops serving shows in a background tab: "(2) Nodes · llmgw console — 2
//! models not serving", and a red icon (amber when only nodes are in
//! trouble). The figures are the wall's, shared by every viewer.

use leptos::prelude::*;
use leptos_meta::Title;

use super::refresh_ticker;
use crate::server_fns::wall::cluster_pulse;
use crate::wall::Pulse;

/// The `<link rel="icon">` the shell writes, which the pulse repoints.
pub const ICON_ID: &str = "tab-icon";

#[component]
pub fn TabPulse() -> impl IntoView {
    let refresh = refresh_ticker();
    // In the browser only: a page rendered on the server says its own name,
    // and a tab without JavaScript does not refresh anyway.
    let pulse = LocalResource::new(move || {
        refresh.track();
        cluster_pulse()
    });
    // Kept through a failed refresh: a hiccup does not clear the warning.
    let current = RwSignal::new(Pulse::default());
    Effect::new(move |_| {
        if let Some(Ok(p)) = pulse.get() {
            current.set(p);
        }
    });
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        let icon = current.get().icon();
        if let Some(link) = document().get_element_by_id(ICON_ID) {
            let _ = link.set_attribute("href", icon);
        }
    });
    view! { <Title formatter=move |page: String| current.get().title(&page) /> }
}
