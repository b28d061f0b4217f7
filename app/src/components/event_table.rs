//! The journal's records as a table, for the events page, and a page's
//! history section: its few newest records, live, with a link to the rest.

use leptos::prelude::*;

use crate::event_lines::{EventLine, fold};
use crate::events_query::EventQuery;
use crate::format;
use crate::live::Live;
use crate::server_fns::events::{EventsPage as Records, list_events};
use crate::urls;
use llmgw_journal::record::EventKind;

/// Records as a table, one line per action: when, about what, what
/// happened (who and why), and its detail.
/// `paged`: with the link to older records (the events page); a history
/// section links to the events page instead.
#[component]
pub fn EventTable(records: Records, query: EventQuery, paged: bool) -> impl IntoView {
    let now = records.now;
    let problems = records.problems.clone();
    if let Some(why) = records.unavailable {
        return view! {
            <p class="warn journal-unread">{format!("The journal cannot be read now: {why}.")}</p>
        }
        .into_any();
    }
    let empty = records.events.is_empty();
    // The window in moments, whatever the URL said it in ("1h" or a date).
    let window = match (paged, query.window(now)) {
        (false, _) | (_, (None, None)) => None,
        (true, (from, to)) => Some(format!(
            "Records from {} to {}.",
            from.map_or("the start of the record".into(), |at| format::moment(
                at, now
            )),
            to.map_or("now".into(), |at| format::moment(at, now)),
        )),
    };
    let older = records.older.filter(|_| paged).map(|before| {
        let next = EventQuery {
            before: Some(before),
            ..query.clone()
        };
        view! { <a class="older" href=format!("{}?{}", urls::scoped("/events"), next.to_query(true))>"Older records →"</a> }
    });
    let more = (!paged && records.older.is_some()).then(|| {
        let all = EventQuery {
            limit: None,
            ..query.clone()
        };
        view! { <a class="older" href=format!("{}?{}", urls::scoped("/events"), all.to_query(false))>"All of them on the events page →"</a> }
    });
    let newest = (paged && query.before.is_some()).then(|| {
        view! { <a href=format!("{}?{}", urls::scoped("/events"), query.to_query(false))>"← Newest"</a> }
    });
    view! {
        {problems.into_iter().map(|p| view! { <p class="warn">{p}</p> }).collect_view()}
        {window.map(|w| view! { <p class="window">{w}</p> })}
        {if empty {
            view! { <p class="empty">"The journal holds nothing of that."</p> }.into_any()
        } else {
            view! {
                <table class="data events">
                    <thead>
                        <tr><th>"When"</th><th>"Of"</th><th>"What happened"</th><th>"Detail"</th></tr>
                    </thead>
                    <tbody>
                        {fold(records.events).into_iter().map(|line| event_row(line, now)).collect_view()}
                    </tbody>
                </table>
            }
                .into_any()
        }}
        <p class="paging">{newest} " " {older} {more}</p>
    }
    .into_any()
}

/// One line: an action with what it caused, or a change llmgw's lists
/// showed.
fn event_row(line: EventLine, now: i64) -> AnyView {
    let sentence = line.sentence();
    let EventLine { event: e, caused } = line;
    let of = match (&e.node, &e.model, &e.replica) {
        (Some(node), _, _) => view! { <a href=urls::node(node)>{node.clone()}</a> }.into_any(),
        (None, Some(model), replica) => view! {
            <a href=urls::placement(model)>{model.clone()}</a>
            {replica.clone().map(|r| view! { " " <code>{r}</code> })}
        }
        .into_any(),
        _ => view! { {format::DASH} }.into_any(),
    };
    let detail = match (e.kind, caused) {
        (EventKind::Attempt, Some(caused)) => format!("node went {caused}"),
        (EventKind::Attempt, None) => String::new(),
        _ => e.detail.clone().unwrap_or_default(),
    };
    view! {
        <tr data-kind=e.kind.as_str() data-outcome=(e.kind == EventKind::Attempt).then(|| e.after.clone()).flatten()>
            <td title=format::rfc3339(e.at)>{format::moment(e.at, now)}</td>
            <td>{of}</td>
            <td>{sentence}</td>
            <td>{detail}</td>
        </tr>
    }
    .into_any()
}

/// A page's history: its few newest records of the journal, live.
#[component]
pub fn History(title: &'static str, query: EventQuery) -> impl IntoView {
    let shown = query.clone();
    let records = Resource::new(move || query.to_query(true), list_events);
    view! {
        <section class="history">
            <h2>{title}</h2>
            <Live resource=records render=move |records: Records| view! { <EventTable records query=shown.clone() paged=false /> } />
        </section>
    }
}
