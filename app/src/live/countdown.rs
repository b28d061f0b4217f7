//! A confirmation's time left, counted down in the browser: the server
//! renders the seconds left (`data-expires-in`), which the browser turns
//! into a deadline on its own clock, so that a clock that differs from the
//! server's does not shorten it. Past the deadline the dialog's delete
//! button is disabled; the server refuses an expired confirmation anyway.

use wasm_bindgen::JsCast;
use web_sys::Element;

const LEFT_ATTR: &str = "data-expires-in";
const DEADLINE_ATTR: &str = "data-deadline";

/// Once a second, for every countdown on the page.
pub fn count_down() {
    let Ok(found) = leptos::prelude::document().query_selector_all(&format!("[{LEFT_ATTR}]"))
    else {
        return;
    };
    let now = js_sys::Date::now();
    for i in 0..found.length() {
        let Some(el) = found.item(i).and_then(|n| n.dyn_into::<Element>().ok()) else {
            continue;
        };
        let deadline = match el
            .get_attribute(DEADLINE_ATTR)
            .and_then(|d| d.parse::<f64>().ok())
        {
            Some(d) => d,
            None => {
                let left: f64 = el
                    .get_attribute(LEFT_ATTR)
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0.0);
                let d = now + left * 1000.0;
                let _ = el.set_attribute(DEADLINE_ATTR, &d.to_string());
                d
            }
        };
        let left = ((deadline - now) / 1000.0).ceil().max(0.0) as i64;
        if let Ok(Some(shown)) = el.query_selector(".left") {
            shown.set_text_content(Some(&crate::format::left(left)));
        }
        if left == 0 {
            let _ = el.class_list().add_1("expired");
            expire(&el);
        }
    }
}

/// Disables the delete button of the dialog `el` is in, and says why.
fn expire(el: &Element) {
    el.set_text_content(Some(
        "This confirmation has expired: review again for a fresh one.",
    ));
    let Some(dialog) = el.closest(".dialog").ok().flatten() else {
        return;
    };
    if let Ok(Some(button)) = dialog.query_selector(".confirm-form button[type='submit']") {
        let _ = button.set_attribute("disabled", "");
    }
}
