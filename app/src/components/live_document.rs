//! The page kept current by the server's own HTML. The page is rendered on
//! the server only; this island follows the change feed (see `updates`),
//! and when a heartbeat brings news it reads the page again and patches
//! `<main>` in place: text only where it changed, attributes only where they
//! differ, rows matched by their key, so a row's text selection and the
//! focused element survive an update that did not change them. Between
//! updates it keeps "updated N s ago" current, and it gives the tab's title
//! and icon the pushed pulse.

use leptos::prelude::*;

/// Placed last in the body: islands hydrate in document order, so when this
/// one runs, every island on the page has, and the page is marked hydrated.
#[island]
pub fn LiveDocument() -> impl IntoView {
    #[cfg(feature = "hydrate")]
    browser::start();
}

#[cfg(feature = "hydrate")]
mod browser {
    use std::cell::Cell;

    use leptos::prelude::*;

    use super::patch::{keep_stale, patch};
    use crate::components::ErrorPanel;
    use crate::components::live::{Freshness, status_text};
    use crate::components::updates::in_browser::{Setters, follow};
    use crate::ui_settings::UiSettings;

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

    pub fn start() {
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
        Effect::new(move |_| {
            let pulse = pulse.get();
            document().set_title(&pulse.title(&page));
            if let Some(link) = document().get_element_by_id(super::super::tab_pulse::ICON_ID) {
                let _ = link.set_attribute("href", pulse.icon());
            }
        });
        // The timer lasts the page's life.
        let _ = set_interval_with_handle(show_age, std::time::Duration::from_secs(1));
        crate::mark_hydrated();
    }

    /// Writes how old the data on screen is into every status line.
    fn show_age() {
        let freshness = FRESHNESS.with(Cell::get);
        let text = status_text(freshness, js_sys::Date::now());
        let Ok(lines) = document().query_selector_all(".live-status") else {
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
                    .toggle_with_force("stale", freshness.failing_since.is_some());
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
            current();
        }
        patch(&old, &new);
        show_age();
    }

    fn main_of(doc: &web_sys::Document) -> Option<web_sys::Element> {
        doc.query_selector("main").ok().flatten()
    }

    /// What the server renders for a part it could not read, for every live
    /// part of `main`, when there is no server to ask: an error panel alone.
    fn unanswered(main: &web_sys::Element, error: &crate::error::ConsoleError) -> web_sys::Element {
        use leptos::tachys::view::{Mountable, Render};
        use wasm_bindgen::JsCast;
        let copy: web_sys::Element = main
            .clone_node_with_deep(true)
            .ok()
            .and_then(|n| n.dyn_into().ok())
            .unwrap_or_else(|| main.clone());
        let Ok(parts) = copy.query_selector_all(".live") else {
            return copy;
        };
        for i in 0..parts.length() {
            let Some(part) = parts
                .item(i)
                .and_then(|p| p.dyn_into::<web_sys::Element>().ok())
            else {
                continue;
            };
            part.set_inner_html("");
            // The server's own component, built in the browser. It holds
            // nothing reactive, so its state can go once it is in place:
            // the elements stay where they were put.
            let error = error.clone();
            let mut panel = view! { <ErrorPanel error /> }.build();
            panel.mount(&part, None);
        }
        copy
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

    /// A page runs for days, a wall through console upgrades: when the
    /// server is another build than the one this page came from, reload,
    /// once per build, so that a server that keeps changing its mind does
    /// not make the page flash.
    fn reload_if_another_build(fresh: &web_sys::Document) {
        let selector = format!("meta[name='{}']", crate::ui_settings::META_NAME);
        let theirs = fresh
            .query_selector(&selector)
            .ok()
            .flatten()
            .and_then(|m| m.get_attribute("content"))
            .and_then(|c| serde_json::from_str::<UiSettings>(&c).ok())
            .map(|s| s.build);
        let Some(theirs) = theirs.filter(|b| !b.is_empty() && *b != UiSettings::current().build)
        else {
            return;
        };
        const KEY: &str = "llmgw-console-reloaded-for";
        let storage = window().session_storage().ok().flatten();
        let done = storage
            .as_ref()
            .and_then(|s| s.get_item(KEY).ok().flatten())
            .is_some_and(|b| b == theirs);
        if !done {
            if let Some(s) = &storage {
                let _ = s.set_item(KEY, &theirs);
            }
            let _ = window().location().reload();
        }
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
    title.split(" · ").next().unwrap_or(title).to_string()
}

#[cfg(feature = "hydrate")]
mod patch {
    use std::collections::HashMap;

    use leptos::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::{Element, Node};

    /// What a table's row is known by across renders (see `data_table`).
    const KEY_ATTR: &str = "data-key";
    /// Attributes the page's islands own once it runs: the row the keyboard
    /// reached, the wall's panel on screen.
    const CLIENT_ATTRS: [&str; 2] = ["data-kbd-current", "data-shown"];

    fn key(node: &Node) -> Option<String> {
        node.dyn_ref::<Element>()?.get_attribute(KEY_ATTR)
    }

    fn same_kind(old: &Node, new: &Node) -> bool {
        old.node_type() == new.node_type()
            && old.node_name() == new.node_name()
            && key(old) == key(new)
    }

    fn adopt(new: &Node) -> Option<Node> {
        document().import_node_with_deep(new, true).ok()
    }

    /// Where the server could not read a part's data it renders the error
    /// alone; what is on screen then stays, under the error, marked stale.
    /// Done here rather than by the server from its last good answer: when
    /// the console itself is gone there is no server to do it, and one way
    /// of keeping stale data serves both cases. Says whether any part is
    /// stale.
    pub fn keep_stale(old: &Element, new: &Element) -> bool {
        let (Ok(olds), Ok(news)) = (
            old.query_selector_all(".live"),
            new.query_selector_all(".live"),
        ) else {
            return false;
        };
        let mut stale = false;
        for i in 0..olds.length().min(news.length()) {
            let (Some(o), Some(n)) = (olds.item(i), news.item(i)) else {
                continue;
            };
            let (Some(o), Some(n)) = (o.dyn_ref::<Element>(), n.dyn_ref::<Element>()) else {
                continue;
            };
            let Some(error) = first(n, ":scope > .error-panel") else {
                continue;
            };
            stale = true;
            if let Some(banner) = first(o, ":scope > .stale-banner") {
                if let Some(shown) = first(&banner, ".error-panel") {
                    patch(&shown, &error);
                }
                // What the server sent would replace the data: this part's
                // banner and data stand instead.
                if let Ok(copy) = o.clone_node_with_deep(true) {
                    let _ = n.replace_with_with_node_1(&copy);
                }
                continue;
            }
            let has_data = children(o).iter().any(|c| {
                c.dyn_ref::<Element>().is_some_and(|e| {
                    !e.class_list().contains("live-status")
                        && !e.class_list().contains("error-panel")
                })
            });
            if !has_data {
                continue;
            }
            let Ok(banner) = document().create_element("div") else {
                continue;
            };
            banner.set_class_name("stale-banner");
            if let Some(error) = adopt(&error) {
                let _ = banner.append_child(&error);
            }
            if let Ok(note) = document().create_element("p") {
                note.set_class_name("stale-note");
                note.set_text_content(Some(
                    "The data below is the last that was fetched successfully.",
                ));
                let _ = banner.append_child(&note);
            }
            let Ok(data) = document().create_element("div") else {
                continue;
            };
            data.set_class_name("stale-data");
            for child in children(o) {
                let status = child
                    .dyn_ref::<Element>()
                    .is_some_and(|e| e.class_list().contains("live-status"));
                if !status {
                    let _ = data.append_child(&child);
                }
            }
            let _ = o.append_child(&banner);
            let _ = o.append_child(&data);
            // The fresh page now says what the screen says, so the patch
            // that follows leaves this part as it is.
            if let Ok(copy) = o.clone_node_with_deep(true) {
                let _ = n.replace_with_with_node_1(&copy);
            }
        }
        stale
    }

    fn first(root: &Element, selector: &str) -> Option<Element> {
        root.query_selector(selector).ok().flatten()
    }

    /// Makes `old` read as `new`, touching only what differs.
    pub fn patch(old: &Node, new: &Node) {
        // Most of a page is as it was: the browser compares a whole subtree
        // in one call, where walking it from WASM costs a call per node
        // (a 100-row table's update took 23 ms of scripting that way).
        if old.is_equal_node(Some(new)) {
            return;
        }
        match old.node_type() {
            Node::TEXT_NODE | Node::COMMENT_NODE => {
                if old.node_value() != new.node_value() {
                    old.set_node_value(new.node_value().as_deref());
                }
                return;
            }
            Node::ELEMENT_NODE => {}
            _ => return,
        }
        let (Some(o), Some(n)) = (old.dyn_ref::<Element>(), new.dyn_ref::<Element>()) else {
            return;
        };
        // An island's content is its own code's: left alone unless the
        // server gave it other props.
        if o.tag_name().eq_ignore_ascii_case("leptos-island") {
            if o.get_attribute("data-props") != n.get_attribute("data-props")
                && let Some(fresh) = adopt(new)
                && let Some(parent) = old.parent_node()
            {
                let _ = parent.replace_child(&fresh, old);
            }
            return;
        }
        patch_attributes(o, n);
        patch_children(old, new);
    }

    fn patch_attributes(o: &Element, n: &Element) {
        for name in n.get_attribute_names().iter().filter_map(|v| v.as_string()) {
            if CLIENT_ATTRS.contains(&name.as_str()) {
                continue;
            }
            let value = n.get_attribute(&name);
            if o.get_attribute(&name) != value {
                let _ = o.set_attribute(&name, value.as_deref().unwrap_or(""));
            }
        }
        for name in o.get_attribute_names().iter().filter_map(|v| v.as_string()) {
            if !n.has_attribute(&name) && !CLIENT_ATTRS.contains(&name.as_str()) {
                let _ = o.remove_attribute(&name);
            }
        }
    }

    fn children(node: &Node) -> Vec<Node> {
        let list = node.child_nodes();
        (0..list.length()).filter_map(|i| list.item(i)).collect()
    }

    /// Keyed children are matched by key wherever they moved to; the others
    /// in order, while they are of the same kind.
    fn patch_children(old: &Node, new: &Node) {
        let before = children(old);
        let mut keyed: HashMap<String, Node> = HashMap::new();
        let mut unkeyed = std::collections::VecDeque::new();
        for child in &before {
            match key(child) {
                Some(k) => {
                    keyed.insert(k, child.clone());
                }
                None => unkeyed.push_back(child.clone()),
            }
        }
        let mut kept = Vec::new();
        let mut cursor = old.first_child();
        for n in children(new) {
            let matched = match key(&n) {
                Some(k) => keyed.remove(&k),
                None => unkeyed
                    .front()
                    .filter(|o| same_kind(o, &n))
                    .cloned()
                    .inspect(|_| {
                        unkeyed.pop_front();
                    }),
            };
            let node = match matched {
                Some(o) => {
                    patch(&o, &n);
                    o
                }
                None => match adopt(&n) {
                    Some(fresh) => fresh,
                    None => continue,
                },
            };
            if cursor.as_ref() == Some(&node) {
                cursor = node.next_sibling();
            } else {
                let _ = old.insert_before(&node, cursor.as_ref());
            }
            kept.push(node);
        }
        for child in before {
            if !kept.contains(&child) {
                let _ = old.remove_child(&child);
            }
        }
    }
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
    }
}
