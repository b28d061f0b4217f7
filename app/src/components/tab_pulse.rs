//! The tab's title and icon carry the cluster's state, so that a model that
//! stops serving shows in a background tab: "(2) Nodes · llmgw console — 2
//! models not serving", and a red icon (amber when only nodes are in
//! trouble). The figures are the wall's, shared by every viewer.

use leptos::prelude::*;
use leptos_meta::Title;

#[cfg(feature = "hydrate")]
use super::refresh_ticker;
#[cfg(feature = "hydrate")]
use crate::server_fns::wall::cluster_pulse;
use crate::wall::Pulse;

/// The `<link rel="icon">` the shell writes, which the pulse repoints.
pub const ICON_ID: &str = "tab-icon";

#[component]
pub fn TabPulse() -> impl IntoView {
    // Kept through a failed refresh: a hiccup does not clear the warning.
    let current = RwSignal::new(Pulse::default());
    // In the browser only. A page rendered on the server says its own name;
    // and a `LocalResource` made there is dropped on whichever worker thread
    // finishes the render, which its `SendWrapper` answers with a panic (a
    // 500 for about one request in a hundred under load).
    #[cfg(feature = "hydrate")]
    {
        let refresh = refresh_ticker();
        let pulse = LocalResource::new(move || {
            refresh.track();
            cluster_pulse()
        });
        Effect::new(move |_| {
            if let Some(Ok(p)) = pulse.get() {
                current.set(p);
            }
        });
        Effect::new(move |_| {
            let icon = current.get().icon();
            if let Some(link) = document().get_element_by_id(ICON_ID) {
                let _ = link.set_attribute("href", icon);
            }
        });
    }
    view! { <Title formatter=move |page: String| current.get().title(&page) /> }
}
