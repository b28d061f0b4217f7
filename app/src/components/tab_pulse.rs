//! The tab's title and icon carry the cluster's state, so that a model that
//! stops serving shows in a background tab: "(2) Nodes · llmgw console — 2
//! models not serving", and a red icon (amber when only nodes are in
//! trouble). The figures are the wall's, shared by every viewer.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::wall::Pulse;

/// The `<link rel="icon">` the shell writes, which the pulse repoints.
pub const ICON_ID: &str = "tab-icon";

#[component]
pub fn TabPulse() -> impl IntoView {
    // On the server the title is the page's own. Its formatter runs when the
    // head is written, after the body and outside the render's reactive
    // arena, so it must not read a signal there (one render in a few
    // hundred panicked doing so under load).
    #[cfg(not(feature = "hydrate"))]
    let formatter = |page: String| Pulse::default().title(&page);
    #[cfg(feature = "hydrate")]
    let formatter = in_browser::follow_the_cluster();
    view! { <Title formatter /> }
}

#[cfg(feature = "hydrate")]
mod in_browser {
    use leptos::prelude::*;

    use super::{ICON_ID, Pulse};
    use crate::components::refresh_ticker;
    use crate::server_fns::wall::cluster_pulse;

    /// Polls the pulse with the page's refresh, repoints the icon, and
    /// returns the title's formatter.
    pub fn follow_the_cluster() -> impl Fn(String) -> String + Send + Sync + 'static {
        // Kept through a failed refresh: a hiccup does not clear the warning.
        let current = RwSignal::new(Pulse::default());
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
        move |page: String| current.get().title(&page)
    }
}
