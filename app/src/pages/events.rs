//! `/events`: what changed in the cluster and what was done through the
//! console, newest first, from the journal: filtered by node, model, kind
//! and time in the URL, paged, and live like every page. The node, explain
//! and overview pages show a few of the same as their history
//! (`components::event_table`).

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::components::EventTable;
use crate::events_query::{EventQuery, is_window};
use crate::live::Live;
use crate::server_fns::events::{EventsPage as Records, list_events};
use crate::urls;
use llmgw_journal::record::EventKind;

/// Windows offered by the page's form; any other can be typed in the URL.
const WINDOWS: [(&str, &str); 6] = [
    ("", "any time"),
    ("1h", "the last hour"),
    ("6h", "the last 6 hours"),
    ("24h", "the last day"),
    ("7d", "the last 7 days"),
    ("30d", "the last 30 days"),
];

#[component]
pub fn EventsPage() -> impl IntoView {
    let params = use_query_map();
    let query = Memo::new(move |_| {
        params.with(|p| {
            let pairs: Vec<(String, String)> = p
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            EventQuery::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        })
    });
    let records = Resource::new(move || query.get().to_query(true), list_events);
    view! {
        <Title text=crate::site_map::EVENTS.title />
        <h1>"Events"</h1>
        <p class="lede">
            "What changed in this cluster, as the console saw it between two reads of llmgw, \
             and every change attempted through a console, newest first. A change shorter \
             than one read of llmgw is not seen."
        </p>
        <EventFilters query=query.get_untracked() />
        <Live
            resource=records
            render=move |records: Records| view! { <EventTable records query=query.get_untracked() paged=true /> }
        />
    }
}

/// The filters, as a form that writes them into the URL (GET).
#[component]
fn EventFilters(query: EventQuery) -> impl IntoView {
    let kind = query.kinds.first().map(|k| k.as_str()).unwrap_or_default();
    // A window back from now is the list's; a moment is From's or To's.
    let since = query.since.clone().unwrap_or_default();
    let window = if is_window(&since) {
        since.clone()
    } else {
        String::new()
    };
    let from = EventQuery::as_field(query.since.as_deref());
    let to = EventQuery::as_field(query.until.as_deref());
    let until_window = query.until.clone().filter(|u| is_window(u));
    view! {
        <form method="get" action=urls::scoped("/events") class="event-filters">
            <label>"Node " <input type="text" name="node" value=query.node.clone().unwrap_or_default() /></label>
            <label>"Model " <input type="text" name="model" value=query.model.clone().unwrap_or_default() /></label>
            <label>
                "Kind "
                <select name="kind">
                    <option value="" selected=kind.is_empty()>"any kind"</option>
                    {EventKind::ALL
                        .into_iter()
                        .map(|k| view! { <option value=k.as_str() selected=k.as_str() == kind>{k.label()}</option> })
                        .collect_view()}
                </select>
            </label>
            <label>
                "Since "
                <select name="since">
                    {WINDOWS
                        .into_iter()
                        .map(|(v, label)| view! { <option value=v selected=v == window>{label}</option> })
                        .collect_view()}
                    {(!window.is_empty() && !WINDOWS.iter().any(|(v, _)| *v == window))
                        .then(|| view! { <option value=window.clone() selected=true>{window.clone()}</option> })}
                </select>
            </label>
            <label>"or from " <input type="datetime-local" name="from" value=from /></label>
            <label>"to " <input type="datetime-local" name="to" value=to /> " UTC"</label>
            {until_window.map(|until| view! { <input type="hidden" name="until" value=until /> })}
            <button type="submit">"Show"</button>
        </form>
    }
}
