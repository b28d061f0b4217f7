//! A live part of a page: its data with how old it is beside it, and the
//! words for that age; the live document keeps both current in the browser.
//! Data the server could not refresh in a page's time is rendered all the
//! same, under the reason, marked stale with its age (see
//! `server::page_reads`): a fresh page in an outage is never blank.

use leptos::prelude::*;
use serde::{Serialize, de::DeserializeOwned};

use super::ErrorPanel;
use super::markup::{
    PART_CLASS, STALE_BANNER_CLASS, STALE_CLASS, STALE_DATA_CLASS, STALE_NOTE_CLASS, STATUS_CLASS,
};
use crate::error::ConsoleError;
use crate::staleness::Staleness;
use crate::wall::Pulse;

/// What the page's reads left stale, on the server; never in the browser,
/// which keeps its own account (see `stale`).
fn stale_on_this_page() -> Option<Staleness> {
    #[cfg(feature = "ssr")]
    {
        crate::server::page_reads::PageReads::of_request().and_then(|reads| reads.stale())
    }
    #[cfg(not(feature = "ssr"))]
    {
        None
    }
}

/// The figures of `stale` as the browser keeps them (milliseconds, `now`
/// being 0).
fn freshness_of(stale: &Staleness) -> Freshness {
    Freshness {
        ok_at: Some(-(stale.data_age_secs as f64) * 1000.0),
        failing_since: stale.failing_for_secs.map(|s| -(s as f64) * 1000.0),
    }
}

/// When the data on screen was fetched, and since when refreshes have failed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Freshness {
    pub(crate) ok_at: Option<f64>,
    pub(crate) failing_since: Option<f64>,
}

fn seconds_between(from: f64, to: f64) -> u64 {
    ((to - from) / 1000.0).max(0.0) as u64
}

pub(crate) fn status_text(f: Freshness, now: f64) -> String {
    match (f.ok_at, f.failing_since) {
        (Some(ok), Some(fail)) => format!(
            "stale: refreshing has failed for {} s; showing data from {} s ago",
            seconds_between(fail, now),
            seconds_between(ok, now)
        ),
        (None, Some(fail)) => format!("refreshing has failed for {} s", seconds_between(fail, now)),
        (Some(ok), None) if seconds_between(ok, now) >= 2 => {
            format!("updated {} s ago", seconds_between(ok, now))
        }
        _ => "updated just now".into(),
    }
}

/// Shows a resource: `render` for good data, and the error alone when
/// there is none (never an empty table that would read as "nothing
/// there"). The status line above says "updated just now"; in the browser
/// the live document keeps it current, and when a later read fails it keeps
/// what is on screen under the error, marked stale (see `stale`).
#[component]
pub fn Live<T, F, V>(resource: Resource<Result<T, ConsoleError>>, render: F) -> impl IntoView
where
    T: Clone + Send + Sync + Serialize + DeserializeOwned + 'static,
    F: Fn(T) -> V + Clone + Send + Sync + 'static,
    V: IntoView + 'static,
{
    view! {
        <div class=PART_CLASS>
            <Transition fallback=|| view! { <p class="loading">"Loading…"</p> }>
                // Read, not awaited in a `Suspend`: a `Suspend` subscribes an
                // observer of its own to what it awaits and never unsubscribes
                // it (`make lint` refuses `Suspend::new`).
                // Erased, and laid out by a function of its own: each page's
                // view type nested three ways deep overflows the compiler's
                // type depth, and a copy per page would grow the binary.
                {move || {
                    resource
                        .get()
                        .map(|outcome| part_of(outcome.map(|data| render(data).into_any())))
                }}
            </Transition>
        </div>
    }
}

/// A part's content: its data under "updated just now", or its last good
/// data marked stale, or the error alone.
fn part_of(outcome: Result<AnyView, ConsoleError>) -> AnyView {
    match (outcome, stale_on_this_page()) {
        (Ok(shown), Some(stale)) => view! { <StaleData stale>{shown}</StaleData> }.into_any(),
        (outcome, _) => {
            let status = view! {
                <p class=STATUS_CLASS aria-live="polite">
                    {status_text(Freshness::default(), 0.0)}
                </p>
            };
            match outcome {
                Ok(shown) => view! { {status} {shown} }.into_any(),
                Err(error) => view! { {status} <ErrorPanel error /> }.into_any(),
            }
        }
    }
}

/// A part's last good data under why it could not be refreshed, as the
/// browser marks it when a later read fails (see `stale`); the tab's title
/// and icon say so from the first paint, with JavaScript or without.
#[component]
fn StaleData(stale: Staleness, children: Children) -> impl IntoView {
    use leptos_meta::{Link, Title};
    let text = status_text(freshness_of(&stale), 0.0);
    let age = stale.data_age_secs.to_string();
    let failing = stale.failing_for_secs.map(|s| s.to_string());
    let cluster = super::tab_pulse::cluster_named(&crate::ui_settings::UiSettings::current());
    let title = move |page: String| {
        Pulse::unreachable_title(&super::tab_pulse::in_cluster(&page, cluster.as_deref()))
    };
    view! {
        <Title formatter=title />
        <Link rel="icon" href=Pulse::UNREACHABLE_ICON type_="image/svg+xml" />
        <p
            class=format!("{STATUS_CLASS} {STALE_CLASS}")
            aria-live="polite"
            // `markup::AGE_ATTR` and `FAILING_ATTR`: the macro takes no
            // constant for a name (the test below holds them together).
            data-age=age
            data-failing=failing
        >
            {text}
        </p>
        <div class=STALE_BANNER_CLASS>
            <ErrorPanel error=stale.why />
            <p class=STALE_NOTE_CLASS>"The data below is the last that was fetched successfully."</p>
        </div>
        <div class=STALE_DATA_CLASS>{children()}</div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_says_how_old_the_data_is() {
        let fresh = Freshness {
            ok_at: Some(1_000.0),
            failing_since: None,
        };
        assert_eq!(status_text(fresh, 1_500.0), "updated just now");
        assert_eq!(status_text(fresh, 13_000.0), "updated 12 s ago");
        let stale = Freshness {
            ok_at: Some(1_000.0),
            failing_since: Some(5_000.0),
        };
        assert_eq!(
            status_text(stale, 11_000.0),
            "stale: refreshing has failed for 6 s; showing data from 10 s ago"
        );
        assert_eq!(status_text(Freshness::default(), 0.0), "updated just now");
    }
}
