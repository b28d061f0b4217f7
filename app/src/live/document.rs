//! The island that keeps the page current: it follows the change feed
//! (`follow`), and when a heartbeat brings news it reads the page again and
//! morphs `<main>` into the fresh render (`morph`), keeping what could not
//! be read under its error (`stale`) and reloading for a new build
//! (`build_reload`). Between updates it keeps "updated N s ago" current,
//! and it gives the tab's title and icon the pushed pulse.

use leptos::prelude::*;

/// Placed last in the body: islands start in document order, so when this
/// one runs, every island on the page has, and the page is marked ready.
#[island]
pub fn LiveDocument() -> impl IntoView {
    #[cfg(feature = "hydrate")]
    browser::start();
}

#[cfg(feature = "hydrate")]
mod browser {
    use std::cell::Cell;

    use leptos::prelude::*;

    use crate::live::build_reload::reload_if_another_build;
    use crate::live::follow::{Setters, follow};
    use crate::live::markup::{
        AGE_ATTR, FAILING_ATTR, ICON_ID, ISLANDS_READY_ATTR, STALE_CLASS, STATUS_CLASS,
    };
    use crate::live::morph::patch;
    use crate::live::part::{Freshness, status_text};
    use crate::live::stale::{keep_stale, unanswered};
    use crate::ui_settings::UiSettings;
    use crate::wall::Pulse;

    thread_local! {
        static FRESHNESS: Cell<Freshness> = Cell::new(Freshness {
            ok_at: Some(js_sys::Date::now()),
            failing_since: None,
        });
    }

    fn failing() {
        FRESHNESS.with(|f| {
            let mut now = f.get();
            now.failing_since.get_or_insert(js_sys::Date::now());
            f.set(now);
        });
    }

    fn current() {
        FRESHNESS.with(|f| {
            f.set(Freshness {
                ok_at: Some(js_sys::Date::now()),
                failing_since: None,
            })
        });
    }

    /// How old the data is that the server rendered stale, if it did:
    /// from where the browser counts on.
    fn rendered_freshness(root: &web_sys::Element) -> Option<Freshness> {
        let line = root
            .query_selector(&format!(".{STATUS_CLASS}[{AGE_ATTR}]"))
            .ok()
            .flatten()?;
        let now = js_sys::Date::now();
        let secs = |attr: &str| -> Option<f64> { line.get_attribute(attr)?.parse().ok() };
        Some(Freshness {
            ok_at: Some(now - secs(AGE_ATTR)? * 1000.0),
            failing_since: secs(FAILING_ATTR).map(|s| now - s * 1000.0),
        })
    }

    fn read_from(root: &web_sys::Element) {
        match rendered_freshness(root) {
            Some(rendered) => FRESHNESS.with(|f| f.set(rendered)),
            None => current(),
        }
    }

    /// Whether the page shows data it could not refresh.
    fn is_stale() -> bool {
        FRESHNESS.with(|f| f.get().failing_since.is_some())
    }

    pub fn start() {
        if let Some(main) = main_of(&document()) {
            read_from(&main);
        }
        let (stale, set_stale) = signal(is_stale());
        let (tick, set_tick) = signal(0u64);
        let (heard_at, set_heard_at) = signal(None::<f64>);
        let (pulse, set_pulse) = signal(UiSettings::current().rendered_pulse());
        let (ok, set_ok) = signal(true);
        follow(Setters {
            tick: set_tick,
            heard_at: set_heard_at,
            pulse: set_pulse,
            ok: set_ok,
        });
        Effect::new(move |seen: Option<u64>| {
            let now = tick.get();
            if seen.is_some_and(|seen| seen != now) {
                leptos::task::spawn_local(refresh());
            }
            now
        });
        // A heartbeat with nothing new still says the data is current.
        Effect::new(move |_| {
            if heard_at.get().is_some() {
                if ok.get_untracked() {
                    if FRESHNESS.with(|f| f.get().failing_since.is_none()) {
                        current();
                    }
                } else {
                    failing();
                }
            }
        });
        let page = super::page_name(&document().title());
        only_one_icon();
        Effect::new(move |_| {
            let pulse = pulse.get();
            let (title, icon) = if stale.get() || !ok.get() {
                (Pulse::unreachable_title(&page), Pulse::UNREACHABLE_ICON)
            } else {
                (pulse.title(&page), pulse.icon())
            };
            document().set_title(&title);
            if let Some(link) = document().get_element_by_id(ICON_ID) {
                let _ = link.set_attribute("href", icon);
            }
        });
        // The timer lasts the page's life.
        let _ = set_interval_with_handle(
            move || {
                show_age();
                crate::live::countdown::count_down();
                set_stale.maybe_update(|shown| {
                    let now = is_stale();
                    let moved = *shown != now;
                    *shown = now;
                    moved
                });
            },
            std::time::Duration::from_secs(1),
        );
        if let Some(root) = document().document_element() {
            let _ = root.set_attribute(ISLANDS_READY_ATTR, "");
        }
    }

    /// Writes how old the data on screen is into every status line.
    fn show_age() {
        let freshness = FRESHNESS.with(Cell::get);
        let text = status_text(freshness, js_sys::Date::now());
        let Ok(lines) = document().query_selector_all(&format!(".{STATUS_CLASS}")) else {
            return;
        };
        for i in 0..lines.length() {
            let Some(line) = lines.item(i) else { continue };
            if line.text_content().as_deref() != Some(&text) {
                line.set_text_content(Some(&text));
            }
            if let Some(line) = wasm_bindgen::JsCast::dyn_ref::<web_sys::Element>(&line) {
                let _ = line
                    .class_list()
                    .toggle_with_force(STALE_CLASS, freshness.failing_since.is_some());
            }
        }
    }

    /// Reads this very view again (address, filters, sort and page) and
    /// patches the document with it. A part the server could not fill
    /// keeps what is on screen, marked stale under the error.
    async fn refresh() {
        let Some(fresh) = read_again().await else {
            // The console itself did not answer (it restarts, or the network
            // went): every part of the page is stale, under that error.
            if let Some(old) = main_of(&document()) {
                let error = crate::error::ConsoleError::Transport(
                    "the page could not be read again".into(),
                );
                let _ = keep_stale(&old, &unanswered(&old, &error));
            }
            failing();
            show_age();
            return;
        };
        reload_if_another_build(&fresh);
        let (Some(old), Some(new)) = (main_of(&document()), main_of(&fresh)) else {
            return;
        };
        if keep_stale(&old, &new) {
            failing();
        } else {
            read_from(&new);
        }
        patch(&old, &new);
        show_age();
    }

    /// A page the server rendered stale names its icon a second time (the
    /// head cannot be rewritten once sent); the pulse's one is kept.
    fn only_one_icon() {
        let Ok(links) = document().query_selector_all("link[rel='icon']") else {
            return;
        };
        for i in 0..links.length() {
            let Some(link) = links
                .item(i)
                .and_then(|l| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(l).ok())
            else {
                continue;
            };
            if link.id() != ICON_ID {
                link.remove();
            }
        }
    }

    fn main_of(doc: &web_sys::Document) -> Option<web_sys::Element> {
        doc.query_selector("main").ok().flatten()
    }

    async fn read_again() -> Option<web_sys::Document> {
        use wasm_bindgen::JsCast;
        use wasm_bindgen_futures::JsFuture;
        let href = window().location().href().ok()?;
        let response: web_sys::Response = JsFuture::from(window().fetch_with_str(&href))
            .await
            .ok()?
            .dyn_into()
            .ok()?;
        let text = JsFuture::from(response.text().ok()?)
            .await
            .ok()?
            .as_string()?;
        web_sys::DomParser::new()
            .ok()?
            .parse_from_string(&text, web_sys::SupportedType::TextHtml)
            .ok()
    }
}

/// The page's own name in a title the pulse wrote ("(2) Nodes · llmgw
/// console — 2 models not serving" is "Nodes").
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
pub(crate) fn page_name(title: &str) -> String {
    let title = match title.strip_prefix('(') {
        Some(rest) => rest.split_once(") ").map_or(rest, |(_, page)| page),
        None => title,
    };
    // The page's own, and its cluster's where the title names one.
    title
        .split_once(" · llmgw console")
        .map_or(title, |(page, _)| page)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::page_name;

    #[test]
    fn the_page_name_is_read_back_from_any_title_the_pulse_wrote() {
        assert_eq!(page_name("Nodes · llmgw console"), "Nodes");
        assert_eq!(
            page_name("(2) Nodes · llmgw console — 2 models not serving"),
            "Nodes"
        );
        assert_eq!(page_name("Wall"), "Wall");
        assert_eq!(
            page_name(&crate::wall::Pulse::unreachable_title("Nodes")),
            "Nodes"
        );
        assert_eq!(
            page_name("(1) Nodes · eu · llmgw console — 1 model not serving"),
            "Nodes · eu"
        );
    }
}
