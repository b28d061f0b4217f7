//! A refusal shown where the action was taken, on the hydrated page: the
//! server function answered an error instead of a redirect with a receipt.
//! (Without JavaScript the same refusal comes back as a receipt; see the
//! router's audit layer.)

use leptos::prelude::*;
use leptos::server_fn::ServerFn;

use super::ErrorPanel;
use crate::error::ConsoleError;

#[component]
pub fn ActionRefusal<S>(action: ServerAction<S>) -> impl IntoView
where
    S: ServerFn<Error = ConsoleError> + Clone + Send + Sync + 'static,
    S::Output: Clone + Send + Sync + 'static,
{
    move || {
        action
            .value()
            .get()
            .and_then(Result::err)
            .map(|error| view! { <ErrorPanel error /> })
    }
}
