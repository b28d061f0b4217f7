//! A page runs for days, a wall through console upgrades: a page that came
//! from another build than the server's reloads itself, once per build.

use leptos::prelude::*;

use crate::ui_settings::UiSettings;

/// Reloads when `fresh` (the page read again) says the server is another
/// build than the one this page came from; once per build, so that a
/// server that keeps changing its mind does not make the page flash.
pub fn reload_if_another_build(fresh: &web_sys::Document) {
    let selector = format!("meta[name='{}']", crate::ui_settings::META_NAME);
    let theirs = fresh
        .query_selector(&selector)
        .ok()
        .flatten()
        .and_then(|m| m.get_attribute("content"))
        .and_then(|c| serde_json::from_str::<UiSettings>(&c).ok())
        .map(|s| s.build);
    let Some(theirs) = theirs.filter(|b| !b.is_empty() && *b != UiSettings::current().build) else {
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
