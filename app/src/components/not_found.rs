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
    view! {
        <Title text="Not found" />
        <h1>"Not found"</h1>
        <p>"There is no page at this address. " <a href=crate::urls::scoped("/nodes")>"Go to the nodes."</a></p>
    }
}
