//! Stale data, kept and marked: where the server could not read a part's
//! data it renders the error alone, and what is on screen then stays under
//! that error, marked stale. When the console itself does not answer, every
//! part is stale under an error built here.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

use super::ErrorPanel;
use super::markup::{
    ERROR_PANEL_CLASS, PART_CLASS, STALE_BANNER_CLASS, STALE_DATA_CLASS, STALE_NOTE_CLASS,
    STATUS_CLASS,
};
use super::morph::{adopt, children, patch};
use crate::error::ConsoleError;

/// Where the server could not read a part's data it renders the error
/// alone; what is on screen then stays, under the error, marked stale.
/// Done here rather than by the server from its last good answer: when
/// the console itself is gone there is no server to do it, and one way
/// of keeping stale data serves both cases. Says whether any part is
/// stale.
pub fn keep_stale(old: &Element, new: &Element) -> bool {
    let (Ok(olds), Ok(news)) = (
        old.query_selector_all(&format!(".{PART_CLASS}")),
        new.query_selector_all(&format!(".{PART_CLASS}")),
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
        let Some(error) = first(n, &format!(":scope > .{ERROR_PANEL_CLASS}")) else {
            continue;
        };
        stale = true;
        if let Some(banner) = first(o, &format!(":scope > .{STALE_BANNER_CLASS}")) {
            if let Some(shown) = first(&banner, &format!(".{ERROR_PANEL_CLASS}")) {
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
                !e.class_list().contains(STATUS_CLASS)
                    && !e.class_list().contains(ERROR_PANEL_CLASS)
            })
        });
        if !has_data {
            continue;
        }
        let Ok(banner) = document().create_element("div") else {
            continue;
        };
        banner.set_class_name(STALE_BANNER_CLASS);
        if let Some(error) = adopt(&error) {
            let _ = banner.append_child(&error);
        }
        if let Ok(note) = document().create_element("p") {
            note.set_class_name(STALE_NOTE_CLASS);
            note.set_text_content(Some(
                "The data below is the last that was fetched successfully.",
            ));
            let _ = banner.append_child(&note);
        }
        let Ok(data) = document().create_element("div") else {
            continue;
        };
        data.set_class_name(STALE_DATA_CLASS);
        for child in children(o) {
            let status = child
                .dyn_ref::<Element>()
                .is_some_and(|e| e.class_list().contains(STATUS_CLASS));
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

/// What the server renders for a part it could not read, for every live
/// part of `main`, when there is no server to ask: an error panel alone.
pub fn unanswered(main: &Element, error: &ConsoleError) -> Element {
    use leptos::tachys::view::{Mountable, Render};
    let copy: Element = main
        .clone_node_with_deep(true)
        .ok()
        .and_then(|n| n.dyn_into().ok())
        .unwrap_or_else(|| main.clone());
    let Ok(parts) = copy.query_selector_all(&format!(".{PART_CLASS}")) else {
        return copy;
    };
    for i in 0..parts.length() {
        let Some(part) = parts.item(i).and_then(|p| p.dyn_into::<Element>().ok()) else {
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
