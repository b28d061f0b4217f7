//! The page's end of the change feed: one `EventSource` per tab, opened by
//! the live document once its island runs. A heartbeat that differs from
//! the last one heard moves `tick`, on which the page is read again; an
//! unchanged one only moves `heard_at`, which tells the page its data is
//! current. Nothing here runs on a timer: a still cluster costs a page no
//! request.

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{EventSource, MessageEvent};

use crate::heartbeat::{Heartbeat, PATH};
use crate::ui_settings::UiSettings;
use crate::wall::Pulse;

/// What the feed moves.
#[derive(Clone, Copy)]
pub struct Setters {
    pub tick: WriteSignal<u64>,
    pub heard_at: WriteSignal<Option<f64>>,
    pub pulse: WriteSignal<Pulse>,
    /// Whether the last heartbeat said every list answered.
    pub ok: WriteSignal<bool>,
}

struct Feed {
    source: Option<EventSource>,
    /// The handlers of `source`, dropped only after it is closed.
    handlers: Vec<Closure<dyn FnMut(web_sys::Event)>>,
    last: Option<Heartbeat>,
    /// How long to wait before opening a stream the server refused.
    period: std::time::Duration,
    set: Setters,
}

type Shared = Rc<RefCell<Feed>>;

pub fn follow(set: Setters) {
    let settings = UiSettings::current();
    let feed: Shared = Rc::new(RefCell::new(Feed {
        source: None,
        handlers: Vec::new(),
        last: None,
        period: settings.refresh_period(),
        set,
    }));
    if page_is_visible() {
        open(&feed);
        // The page on screen was rendered at this heartbeat: hearing it
        // again first is no news, and the page does not read everything
        // again the moment its islands start.
        feed.borrow_mut().last = settings.rendered_at;
    }
    // A hidden tab lets go of its stream: it would keep the console
    // polling for nobody, and browsers allow few connections per site.
    let on_visibility = {
        let feed = feed.clone();
        Closure::<dyn FnMut()>::new(move || {
            if page_is_visible() {
                if feed.borrow().source.is_none() {
                    open(&feed);
                }
            } else {
                shut(&feed);
            }
        })
    };
    document().set_onvisibilitychange(Some(on_visibility.as_ref().unchecked_ref()));
    // Lives as long as the tab.
    on_visibility.forget();
}

/// The page's cluster's change stream; for a page about several, the
/// stream of the clusters its own address lists.
fn stream_address() -> String {
    let search = window().location().search().unwrap_or_default();
    let listed = search
        .trim_start_matches('?')
        .split('&')
        .find(|pair| pair.starts_with("clusters="));
    match listed {
        Some(pair) => format!("{}?{pair}", crate::urls::scoped(PATH)),
        None => crate::urls::scoped(PATH),
    }
}

fn page_is_visible() -> bool {
    document().visibility_state() == web_sys::VisibilityState::Visible
}

fn open(feed: &Shared) {
    shut(feed);
    let Ok(source) = EventSource::new(&stream_address()) else {
        return;
    };
    let on_message = {
        let feed = feed.clone();
        Closure::<dyn FnMut(web_sys::Event)>::new(move |event: web_sys::Event| {
            let Some(text) = event
                .dyn_ref::<MessageEvent>()
                .and_then(|m| m.data().as_string())
            else {
                return;
            };
            if let Ok(heartbeat) = serde_json::from_str::<Heartbeat>(&text) {
                heard(&feed, heartbeat);
            }
        })
    };
    let on_error = {
        let feed = feed.clone();
        Closure::<dyn FnMut(web_sys::Event)>::new(move |_| lost(&feed))
    };
    source.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    source.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    let mut f = feed.borrow_mut();
    f.source = Some(source);
    f.handlers = vec![on_message, on_error];
}

fn shut(feed: &Shared) {
    let mut f = feed.borrow_mut();
    if let Some(source) = f.source.take() {
        source.close();
    }
    f.handlers.clear();
    f.last = None;
}

fn heard(feed: &Shared, heartbeat: Heartbeat) {
    let (news, set) = {
        let mut f = feed.borrow_mut();
        let news = f.last != Some(heartbeat);
        f.last = Some(heartbeat);
        (news, f.set)
    };
    set.heard_at.set(Some(js_sys::Date::now()));
    set.ok.set(heartbeat.ok);
    if let Some(pulse) = heartbeat.pulse {
        set.pulse.maybe_update(|shown| {
            let moved = *shown != pulse;
            *shown = pulse;
            moved
        });
    }
    // After a reconnection the first heartbeat is news too: the page
    // cannot know what it missed.
    if news {
        set.tick.update(|t| *t += 1);
    }
}

/// The stream broke: the console restarted, or the network went. The
/// page reads, so that what failed is shown as stale; the browser
/// reconnects by itself unless the server answered something other than
/// a stream, and then it is tried again a period later.
fn lost(feed: &Shared) {
    let (was_following, closed, set_tick, period) = {
        let mut f = feed.borrow_mut();
        let closed = f
            .source
            .as_ref()
            .is_some_and(|s| s.ready_state() == EventSource::CLOSED);
        (f.last.take().is_some(), closed, f.set.tick, f.period)
    };
    if was_following {
        set_tick.update(|t| *t += 1);
        // A console on its way down ends the stream first and may still
        // answer that read. If no heartbeat has come a period later,
        // read once more, so that a console that is gone shows as gone.
        let feed = feed.clone();
        set_timeout(
            move || {
                let (silent, set_tick) = {
                    let f = feed.borrow();
                    (f.source.is_some() && f.last.is_none(), f.set.tick)
                };
                if silent {
                    set_tick.update(|t| *t += 1);
                }
            },
            period,
        );
    }
    if closed {
        let feed = feed.clone();
        set_timeout(
            move || {
                if page_is_visible() {
                    open(&feed);
                }
            },
            period,
        );
    }
}
