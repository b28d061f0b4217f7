//! Data that stays current on its own: read again when the server pushes a
//! change (see `updates`), with "updated N s ago" beside it, and when a
//! read fails the last good data stays on screen, marked stale, with the
//! error.

use leptos::either::EitherOf3;
use leptos::prelude::*;
use serde::{Serialize, de::DeserializeOwned};

use super::{ErrorPanel, Updates};
use crate::error::ConsoleError;

/// What a page's resources are keyed on: a counter that moves when the
/// server says the lists moved, and the receipt of the last action, so that
/// the views an action affected read again as soon as it is done.
pub fn refresh_ticker() -> Memo<(u64, String)> {
    let tick = Updates::current().tick;
    let params = leptos_router::hooks::use_query_map();
    Memo::new(move |_| {
        (
            tick.get(),
            params.with(|p| p.get("receipt").unwrap_or_default()),
        )
    })
}

/// Milliseconds on the browser's clock; the server renders "just now".
fn now_ms() -> f64 {
    #[cfg(feature = "hydrate")]
    {
        js_sys::Date::now()
    }
    #[cfg(not(feature = "hydrate"))]
    {
        0.0
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

/// Shows a re-fetched resource: `render` for good data, the last good data
/// marked stale when a refresh fails, and the error alone when there has never
/// been good data (never an empty table that would read as "nothing there").
#[component]
pub fn Live<T, F, V>(resource: Resource<Result<T, ConsoleError>>, render: F) -> impl IntoView
where
    T: Clone + Send + Sync + Serialize + DeserializeOwned + 'static,
    F: Fn(T) -> V + Clone + Send + Sync + 'static,
    V: IntoView + 'static,
{
    let last_good = StoredValue::new(None::<T>);
    let freshness = RwSignal::new(Freshness::default());
    let clock = RwSignal::new(now_ms());

    #[cfg(feature = "hydrate")]
    {
        // A heartbeat with nothing new still says the data is current.
        let heard_at = Updates::current().heard_at;
        Effect::new(move |_| {
            if let Some(at) = heard_at.get() {
                freshness.update(|f| {
                    if f.failing_since.is_none() && f.ok_at.is_some() {
                        f.ok_at = Some(at);
                    }
                });
                clock.set(at);
            }
        });
        Effect::new(move |_| {
            let outcome = resource.with(|r| r.as_ref().map(Result::is_ok));
            let now = now_ms();
            clock.set(now);
            match outcome {
                Some(true) => freshness.set(Freshness {
                    ok_at: Some(now),
                    failing_since: None,
                }),
                Some(false) => freshness.update(|f| {
                    f.failing_since.get_or_insert(now);
                }),
                None => {}
            }
        });
        Effect::new(move |_| {
            if let Ok(handle) = set_interval_with_handle(
                move || clock.set(now_ms()),
                std::time::Duration::from_secs(1),
            ) {
                on_cleanup(move || handle.clear());
            }
        });
    }

    let status = move || status_text(freshness.get(), clock.get());
    let is_stale = move || freshness.get().failing_since.is_some();

    view! {
        <div class="live">
            <p class="live-status" class:stale=is_stale aria-live="polite">
                {status}
            </p>
            <Transition fallback=|| view! { <p class="loading">"Loading…"</p> }>
                // Read, not awaited in a `Suspend`: a `Suspend` subscribes an
                // observer of its own to what it awaits and never unsubscribes
                // it, and a resource keeps every subscriber it was given. A
                // view that renders again on every update then kept 60 bytes
                // per update for the tab's life. Read here, the resource (and
                // anything `render` reads) subscribes this closure's effect,
                // which lets go of it on each run. `make lint` refuses
                // `Suspend::new` for this reason.
                {move || {
                    resource
                        .get()
                        .map(|outcome| match outcome {
                            Ok(data) => {
                                last_good.set_value(Some(data.clone()));
                                EitherOf3::A(render(data))
                            }
                            Err(error) => match last_good.get_value() {
                                Some(data) => EitherOf3::B(view! {
                                    <div class="stale-banner">
                                        <ErrorPanel error />
                                        <p class="stale-note">
                                            "The data below is the last that was fetched successfully."
                                        </p>
                                    </div>
                                    <div class="stale-data">{render(data)}</div>
                                }),
                                None => EitherOf3::C(view! { <ErrorPanel error /> }),
                            },
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
