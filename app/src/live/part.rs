//! A live part of a page: its data with how old it is beside it, and the
//! words for that age; the live document keeps both current in the browser.

use leptos::either::Either;
use leptos::prelude::*;
use serde::{Serialize, de::DeserializeOwned};

use super::markup::{PART_CLASS, STATUS_CLASS};
use crate::components::ErrorPanel;
use crate::error::ConsoleError;

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
            <p class=STATUS_CLASS aria-live="polite">
                {status_text(Freshness::default(), 0.0)}
            </p>
            <Transition fallback=|| view! { <p class="loading">"Loading…"</p> }>
                // Read, not awaited in a `Suspend`: a `Suspend` subscribes an
                // observer of its own to what it awaits and never unsubscribes
                // it (`make lint` refuses `Suspend::new`).
                {move || {
                    resource
                        .get()
                        .map(|outcome| match outcome {
                            Ok(data) => Either::Left(render(data)),
                            Err(error) => Either::Right(view! { <ErrorPanel error /> }),
                        })
                }}
            </Transition>
        </div>
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
