//! The keyed morph: makes the page on screen read as the server's fresh
//! render of it, touching only what differs (the core of what morphdom and
//! idiomorph do). Text changes only where it changed, attributes only where
//! they differ, rows are matched by their key wherever they moved; so a
//! row's text selection and the focused element survive an update that did
//! not change them. An island is its own code's: left alone unless the
//! server gave it other props, and started when a patch puts one in.

use std::collections::HashMap;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, Node};

use super::markup::{CLIENT_ATTRS, ISLAND_NAME_ATTR, ISLAND_PROPS_ATTR, ISLAND_TAG, KEY_ATTR};

fn key(node: &Node) -> Option<String> {
    node.dyn_ref::<Element>()?.get_attribute(KEY_ATTR)
}

fn same_kind(old: &Node, new: &Node) -> bool {
    old.node_type() == new.node_type() && old.node_name() == new.node_name() && key(old) == key(new)
}

/// A copy of `new` (from the fresh document) for this one.
pub(super) fn adopt(new: &Node) -> Option<Node> {
    document().import_node_with_deep(new, true).ok()
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
    if o.tag_name().eq_ignore_ascii_case(ISLAND_TAG) {
        if o.get_attribute(ISLAND_PROPS_ATTR) != n.get_attribute(ISLAND_PROPS_ATTR)
            && let Some(fresh) = adopt(new)
            && let Some(parent) = old.parent_node()
        {
            let _ = parent.replace_child(&fresh, old);
            start_islands(&fresh);
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

pub(super) fn children(node: &Node) -> Vec<Node> {
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
    let mut inserted = Vec::new();
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
                Some(fresh) => {
                    inserted.push(fresh.clone());
                    fresh
                }
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
    // Once in the document, where an island's code expects to find it.
    for node in inserted {
        start_islands(&node);
    }
}

/// Runs the islands in `node`, which a patch put there: Leptos's loader
/// starts those of the first render only. Each outermost island is handed
/// to the loader's own `__hydrateIsland`, which starts the ones inside it.
fn start_islands(node: &Node) {
    let Some(root) = node.dyn_ref::<Element>() else {
        return;
    };
    let mut islands = Vec::new();
    if root.tag_name().eq_ignore_ascii_case(ISLAND_TAG) {
        islands.push(root.clone());
    } else if let Ok(found) = root.query_selector_all(ISLAND_TAG) {
        for i in 0..found.length() {
            let Some(island) = found.item(i).and_then(|n| n.dyn_into::<Element>().ok()) else {
                continue;
            };
            let nested = island
                .parent_element()
                .and_then(|p| p.closest(ISLAND_TAG).ok().flatten())
                .is_some_and(|outer| root.contains(Some(outer.as_ref())));
            if !nested {
                islands.push(island);
            }
        }
    }
    let Ok(start) = js_sys::Reflect::get(&window(), &"__hydrateIsland".into()) else {
        return;
    };
    let Some(start) = start.dyn_ref::<js_sys::Function>() else {
        return;
    };
    for island in islands {
        let name = island.get_attribute(ISLAND_NAME_ATTR).unwrap_or_default();
        let _ = start.call2(&wasm_bindgen::JsValue::NULL, &island, &name.into());
    }
}
