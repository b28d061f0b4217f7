//! The morph in a real browser: `make unit` runs these in headless Chromium
//! through wasm-bindgen-test. Each test renders an "old" page into the
//! document, morphs it into a "new" render, and checks both what the page
//! reads and which elements survived: a kept element is the same object,
//! which is what keeps a row's selection and the focus across an update.
#![cfg(all(target_arch = "wasm32", feature = "hydrate"))]

use app::live::markup::{ISLAND_NAME_ATTR, KBD_CURRENT_ATTR};
use app::live::morph::patch;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{Element, Node};

wasm_bindgen_test_configure!(run_in_browser);

fn document() -> web_sys::Document {
    web_sys::window()
        .and_then(|w| w.document())
        .expect("a document")
}

/// `html` rendered into a fresh element of this document.
fn on_screen(html: &str) -> Element {
    let root = document().create_element("div").expect("div");
    root.set_inner_html(html);
    document()
        .body()
        .expect("body")
        .append_child(&root)
        .expect("in body");
    root
}

/// `html` as the server's fresh render: parsed into another document, as
/// the live document reads a page again.
fn fresh(html: &str) -> Element {
    let parsed = web_sys::DomParser::new()
        .expect("parser")
        .parse_from_string(
            &format!("<div>{html}</div>"),
            web_sys::SupportedType::TextHtml,
        )
        .expect("parsed");
    parsed
        .body()
        .and_then(|b| b.first_element_child())
        .expect("root")
}

fn morph(old: &Element, new_html: &str) {
    patch(
        old.unchecked_ref::<Node>(),
        fresh(new_html).unchecked_ref::<Node>(),
    );
}

fn keyed(root: &Element, key: &str) -> Element {
    root.query_selector(&format!("[data-key='{key}']"))
        .ok()
        .flatten()
        .unwrap_or_else(|| panic!("no row {key}"))
}

fn keys(root: &Element) -> Vec<String> {
    let rows = root.query_selector_all("[data-key]").expect("rows");
    (0..rows.length())
        .filter_map(|i| rows.item(i))
        .filter_map(|n| n.dyn_into::<Element>().ok())
        .filter_map(|e| e.get_attribute("data-key"))
        .collect()
}

fn rows(keys_and_text: &[(&str, &str)]) -> String {
    let rows: String = keys_and_text
        .iter()
        .map(|(k, t)| format!("<tr data-key='{k}'><td>{t}</td></tr>"))
        .collect();
    format!("<table><tbody>{rows}</tbody></table>")
}

/// Records the islands the morph hands to Leptos's loader, in place of it.
fn record_started_islands() {
    let record = js_sys::Function::new_with_args("el, id", "(window.__started ||= []).push(id)");
    let window = web_sys::window().expect("window");
    js_sys::Reflect::set(&window, &"__started".into(), &js_sys::Array::new()).expect("set");
    js_sys::Reflect::set(&window, &"__hydrateIsland".into(), &record).expect("set");
}

fn started_islands() -> Vec<String> {
    let window = web_sys::window().expect("window");
    let started = js_sys::Reflect::get(&window, &"__started".into()).expect("get");
    js_sys::Array::from(&started)
        .iter()
        .filter_map(|v| v.as_string())
        .collect()
}

#[wasm_bindgen_test]
fn rows_that_move_are_the_same_elements_in_the_new_order() {
    let root = on_screen(&rows(&[("a", "A"), ("b", "B"), ("c", "C")]));
    let (a, b, c) = (keyed(&root, "a"), keyed(&root, "b"), keyed(&root, "c"));
    morph(&root, &rows(&[("c", "C"), ("a", "A"), ("b", "B")]));
    assert_eq!(keys(&root), ["c", "a", "b"]);
    assert!(keyed(&root, "a") == a && keyed(&root, "b") == b && keyed(&root, "c") == c);
}

#[wasm_bindgen_test]
fn a_row_inserted_or_removed_leaves_the_others_in_place() {
    let root = on_screen(&rows(&[("a", "A"), ("b", "B"), ("c", "C")]));
    let (a, c) = (keyed(&root, "a"), keyed(&root, "c"));
    morph(&root, &rows(&[("a", "A"), ("new", "N"), ("c", "C")]));
    assert_eq!(keys(&root), ["a", "new", "c"]);
    assert_eq!(keyed(&root, "new").text_content().as_deref(), Some("N"));
    assert!(keyed(&root, "a") == a && keyed(&root, "c") == c);
    morph(&root, &rows(&[("c", "C")]));
    assert_eq!(keys(&root), ["c"]);
    assert!(keyed(&root, "c") == c);
}

#[wasm_bindgen_test]
fn text_changes_where_it_changed_and_the_rows_element_stays() {
    let root = on_screen(&rows(&[("a", "ready"), ("b", "B")]));
    let a = keyed(&root, "a");
    let b_text = keyed(&root, "b")
        .first_child()
        .and_then(|td| td.first_child())
        .expect("text");
    morph(&root, &rows(&[("a", "cordoned"), ("b", "B")]));
    assert!(keyed(&root, "a") == a);
    assert_eq!(a.text_content().as_deref(), Some("cordoned"));
    let b_text_now = keyed(&root, "b")
        .first_child()
        .and_then(|td| td.first_child())
        .expect("text");
    assert!(b_text_now == b_text, "an unchanged text node was replaced");
}

#[wasm_bindgen_test]
fn attributes_follow_the_server_but_those_islands_own_stay() {
    let root = on_screen("<p class='old' title='t' data-x='1'>x</p>");
    let p = root.first_element_child().expect("p");
    p.set_attribute(KBD_CURRENT_ATTR, "").expect("set");
    morph(&root, "<p class='new' data-y='2'>x</p>");
    let p_now = root.first_element_child().expect("p");
    assert!(p_now == p);
    assert_eq!(p.get_attribute("class").as_deref(), Some("new"));
    assert_eq!(p.get_attribute("data-y").as_deref(), Some("2"));
    assert!(!p.has_attribute("title") && !p.has_attribute("data-x"));
    assert!(
        p.has_attribute(KBD_CURRENT_ATTR),
        "the keyboard's row was lost"
    );
}

#[wasm_bindgen_test]
fn an_island_is_left_to_its_code_until_its_props_change() {
    record_started_islands();
    let island = |props: &str, text: &str| {
        format!(
            "<leptos-island {ISLAND_NAME_ATTR}='Clock' data-props='{props}'>{text}</leptos-island>"
        )
    };
    let root = on_screen(&island("{\"a\":1}", "12:00"));
    let first = root.first_element_child().expect("island");
    // Its code wrote the time; the server's render says another.
    first.set_text_content(Some("12:01"));
    morph(&root, &island("{\"a\":1}", "11:59"));
    assert!(root.first_element_child().expect("island") == first);
    assert_eq!(first.text_content().as_deref(), Some("12:01"));
    assert!(started_islands().is_empty());
    // New props: the server's island replaces it and is started.
    morph(&root, &island("{\"a\":2}", "12:02"));
    let second = root.first_element_child().expect("island");
    assert!(second != first);
    assert_eq!(second.text_content().as_deref(), Some("12:02"));
    assert_eq!(started_islands(), ["Clock"]);
}

#[wasm_bindgen_test]
fn an_island_a_patch_inserts_is_started_once_and_its_inner_ones_by_it() {
    record_started_islands();
    let root = on_screen(&rows(&[("a", "A")]));
    let with_island = format!(
        "<table><tbody><tr data-key='a'><td>A</td></tr><tr data-key='b'><td>\
         <leptos-island {ISLAND_NAME_ATTR}='Outer' data-props='{{}}'>\
         <leptos-island {ISLAND_NAME_ATTR}='Inner' data-props='{{}}'></leptos-island>\
         </leptos-island></td></tr></tbody></table>"
    );
    morph(&root, &with_island);
    assert_eq!(keys(&root), ["a", "b"]);
    // The loader starts the islands inside the one it is given.
    assert_eq!(started_islands(), ["Outer"]);
    // Once in, a later patch with the same props starts nothing again.
    morph(&root, &with_island);
    assert_eq!(started_islands(), ["Outer"]);
}
