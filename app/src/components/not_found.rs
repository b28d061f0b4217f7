//! What any address the console does not know shows: the router's fallback,
//! and a placement page whose path names no model.

use leptos::prelude::*;
use leptos_meta::Title;

/// Any path the console does not know. Answered with a real 404 status, so a
/// mistyped shared link is not mistaken for an empty view.
#[component]
pub fn NotFound() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(axum::http::StatusCode::NOT_FOUND);
    }
    let ui = crate::ui_settings::UiSettings::current();
    if let Some(id) = unknown_cluster() {
        // The clusters there are, each a way in: a link from another
        // console's setup, or a cluster renamed, lands somewhere useful.
        let clusters = ui
            .clusters
            .iter()
            .map(|c| {
                view! {
                    <li>
                        <a href=format!("{}/", c.base())><super::ClusterBadge tag=c.clone() /></a>
                        " "<code>{format!("{}/", c.base())}</code>
                    </li>
                }
            })
            .collect_view();
        return view! {
            <Title text="No such cluster" />
            <h1>"No such cluster"</h1>
            <p>"This console shows no cluster called " <code>{id}</code> ". It shows:"</p>
            <ul class="cluster-list">{clusters}</ul>
        }
        .into_any();
    }
    view! {
        <Title text="Not found" />
        <h1>"Not found"</h1>
        <p>"There is no page at this address. " <a href=crate::urls::scoped("/nodes")>"Go to the nodes."</a></p>
    }
    .into_any()
}

/// The cluster the address named, when this console shows none by that id.
fn unknown_cluster() -> Option<String> {
    #[cfg(feature = "ssr")]
    {
        use_context::<axum::http::request::Parts>().and_then(|p| {
            p.extensions
                .get::<crate::server::clusters::UnknownCluster>()
                .map(|u| u.0.clone())
        })
    }
    #[cfg(not(feature = "ssr"))]
    {
        None
    }
}
