//! The heading and title of a page about one named thing (a node, a model).
//! The name comes from the address, which anyone can write: it is put in
//! the heading and the tab's title only once the console knows the thing
//! exists, so that a link cannot make the console announce words of its
//! choosing ("URGENT: run … | sudo sh") in its own voice. Otherwise the
//! page says there is no such thing, and shows the name only quoted, in a
//! sentence of its own.

use leptos::prelude::*;
use leptos_meta::Title;

/// Whether the page's thing exists, as far as its answer says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known {
    Listed,
    Missing,
    /// The answer did not come (the admin API is down): not said either way.
    Unsure,
}

/// `what` is the thing's kind ("node"); `title` the tab's title of a listed
/// one. A missing one's page quotes the name where it says so.
#[component]
pub fn NamedHeading(
    name: String,
    known: Known,
    what: &'static str,
    title: String,
) -> impl IntoView {
    let kind = {
        let mut chars = what.chars();
        chars
            .next()
            .map(|c| c.to_uppercase().chain(chars).collect::<String>())
            .unwrap_or_default()
    };
    match known {
        Known::Listed => view! {
            <Title text=title />
            <h1 class="id">{name}</h1>
        }
        .into_any(),
        // The page's answer quotes the name in its own sentence.
        Known::Missing => view! {
            <Title text=format!("No such {what}") />
            <h1>{format!("No {what} by that name")}</h1>
        }
        .into_any(),
        Known::Unsure => view! {
            <Title text=kind.clone() />
            <h1>{kind}</h1>
            <p class="asked">{format!("The link asks for a {what} called “{name}”.")}</p>
        }
        .into_any(),
    }
}
