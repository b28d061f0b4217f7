//! The keyboard, for operators who live in a terminal: `/` to the filter,
//! `Esc` closes a dialog or clears the filter, `g` then a letter goes to a
//! page, `j`/`k` move between a table's rows and `Enter` opens one, `?`
//! lists them all. Nothing fires while typing in a field (but `Esc`, which
//! leaves it). The keys drive what is on the page (its links and forms), so
//! they take the same paths as a click and add no behaviour of their own.

use leptos::prelude::*;

use crate::site_map::{DESTINATIONS, Destination};

/// What a key asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    FocusFilter,
    Escape,
    GoTo(&'static str),
    NextRow,
    PreviousRow,
    OpenRow,
    ToggleHelp,
    /// To the header's jump-to box.
    Jump,
}

/// The keys pressed so far: only `g` waits for a second key.
#[derive(Default)]
pub struct Keys {
    after_g: bool,
}

impl Keys {
    /// The command for `key` (a `KeyboardEvent.key`), if any. `typing` is
    /// whether focus is in a field, `modified` whether Ctrl, Alt or Meta is
    /// held (those belong to the browser).
    pub fn press(&mut self, key: &str, typing: bool, modified: bool) -> Option<Command> {
        let after_g = std::mem::take(&mut self.after_g);
        if key == "Escape" {
            return Some(Command::Escape);
        }
        // Ctrl+K (⌘K): the jump-to box, from anywhere, as in the consoles
        // operators know.
        if modified && key.eq_ignore_ascii_case("k") {
            return Some(Command::Jump);
        }
        if typing || modified {
            return None;
        }
        if after_g {
            let letter = key.chars().next().filter(|_| key.chars().count() == 1)?;
            return Destination::for_key(letter).map(|d| Command::GoTo(d.path));
        }
        match key {
            "/" => Some(Command::FocusFilter),
            "g" => {
                self.after_g = true;
                None
            }
            "j" => Some(Command::NextRow),
            "k" => Some(Command::PreviousRow),
            "Enter" => Some(Command::OpenRow),
            "?" => Some(Command::ToggleHelp),
            _ => None,
        }
    }
}

/// Listens to the keyboard for the page's life and renders the `?` list.
#[island]
pub fn Shortcuts() -> impl IntoView {
    let help = RwSignal::new(false);
    #[cfg(feature = "hydrate")]
    browser::listen(help);
    move || {
        help.get().then(|| {
            view! {
                <div class="dialog-backdrop keys-help">
                    <section class="dialog" role="dialog" aria-modal="true" aria-labelledby="keys-title">
                        <h2 id="keys-title">"Keyboard shortcuts"</h2>
                        <dl>
                            <dt><kbd>"/"</kbd></dt>
                            <dd>"Filter the table (where there is none, jump)"</dd>
                            <dt><kbd>"Ctrl"</kbd>" " <kbd>"K"</kbd></dt>
                            <dd>"Jump to a node, model or replica of any cluster"</dd>
                            <dt><kbd>"Esc"</kbd></dt>
                            <dd>"Close a dialog or this list; clear the filter"</dd>
                            <dt><kbd>"j"</kbd>" " <kbd>"k"</kbd></dt>
                            <dd>"Next or previous row"</dd>
                            <dt><kbd>"Enter"</kbd></dt>
                            <dd>"Open the row"</dd>
                            {DESTINATIONS
                                .iter()
                                .map(|d| {
                                    view! {
                                        <dt><kbd>"g"</kbd>" " <kbd>{d.key.to_string()}</kbd></dt>
                                        <dd>"Go to " {d.title}</dd>
                                    }
                                })
                                .collect_view()}
                            <dt><kbd>"?"</kbd></dt>
                            <dd>"Show or hide this list"</dd>
                        </dl>
                        <p class="dialog-cancel">
                            <button type="button" on:click=move |_| help.set(false)>"Close"</button>
                        </p>
                    </section>
                </div>
            }
        })
    }
}

#[cfg(feature = "hydrate")]
mod browser {
    use std::cell::{Cell, RefCell};

    use leptos::ev;
    use leptos::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::{Element, HtmlElement, HtmlInputElement, KeyboardEvent};

    use super::{Command, Keys};

    /// The rows j/k walk: a table's rows that open something.
    const ROWS: &str = "main table.data > tbody > tr";
    const CURRENT: &str = crate::live::markup::KBD_CURRENT_ATTR;
    const FILTER: &str = ".filter-bar input[type='search']";
    const JUMP: &str = "header.top form.jump input[name='q']";

    pub fn listen(help: RwSignal<bool>) {
        let keys = RefCell::new(Keys::default());
        // The row reached, by position, so that it survives the table being
        // rendered again by a refresh.
        let row = Cell::new(None::<usize>);
        let page = RefCell::new(String::new());
        let navigate = |to: &str, _: ()| {
            let _ = window().location().set_href(to);
        };
        focus_the_opener(&window().location().hash().unwrap_or_default());
        let handle = window_event_listener(ev::keydown, move |event: KeyboardEvent| {
            if event.key() == "Tab" && !event.ctrl_key() && !event.alt_key() && !event.meta_key() {
                if keep_tab_in_dialog(event.shift_key()) {
                    event.prevent_default();
                }
                return;
            }
            let path = window().location().pathname().unwrap_or_default();
            if *page.borrow() != path {
                row.set(None);
                *page.borrow_mut() = path;
            }
            let modified = event.ctrl_key() || event.alt_key() || event.meta_key();
            let command = keys.borrow_mut().press(&event.key(), typing(), modified);
            let Some(command) = command else { return };
            let handled = match command {
                Command::ToggleHelp => {
                    help.update(|open| *open = !*open);
                    true
                }
                Command::Escape if help.get_untracked() => {
                    help.set(false);
                    true
                }
                Command::Escape => escape(&|to: &str| navigate(to, ())),
                // A page without a table's filter has only the jump box.
                Command::FocusFilter => focus_filter() || focus_jump(),
                Command::Jump => focus_jump(),
                Command::GoTo(path) => go_to(&crate::urls::scoped(path)),
                Command::NextRow => move_row(&row, 1),
                Command::PreviousRow => move_row(&row, -1),
                Command::OpenRow => open_row(&row),
            };
            if handled {
                event.prevent_default();
            }
        });
        // The listener lives as long as the page: the component is mounted
        // once, beside the router.
        std::mem::forget(handle);
    }

    fn typing() -> bool {
        document().active_element().is_some_and(|el| {
            matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
                || el
                    .dyn_ref::<HtmlElement>()
                    .is_some_and(|el| el.is_content_editable())
        })
    }

    fn find(selector: &str) -> Option<Element> {
        document().query_selector(selector).ok().flatten()
    }

    fn click(selector: &str) -> bool {
        match find(selector).and_then(|el| el.dyn_into::<HtmlElement>().ok()) {
            Some(el) => {
                el.click();
                true
            }
            None => false,
        }
    }

    /// Closes the dialog open (by its own Cancel link), else leaves the
    /// filter and shows the same view without it.
    fn escape(navigate: &dyn Fn(&str)) -> bool {
        if close_dialog() {
            return true;
        }
        let Some(input) = find(FILTER).and_then(|el| el.dyn_into::<HtmlInputElement>().ok()) else {
            return false;
        };
        let focused = document()
            .active_element()
            .is_some_and(|el| el == *input.unchecked_ref::<Element>());
        if focused {
            let _ = input.blur();
        }
        let location = window().location();
        let here = crate::urls::path_and_query(
            &location.pathname().unwrap_or_default(),
            &location.search().unwrap_or_default(),
        );
        let cleared = crate::urls::without_filter(&here);
        if cleared != here || !input.value().is_empty() {
            input.set_value("");
            navigate(&cleared);
            return true;
        }
        focused
    }

    /// Takes the open dialog off the page and puts its Cancel link's address
    /// in the address bar: what following the link would show, without
    /// loading the page again (keys pressed meanwhile would be lost).
    fn close_dialog() -> bool {
        let Some(cancel) = find(".dialog .dialog-cancel a") else {
            return false;
        };
        let href = cancel.get_attribute("href").unwrap_or_default();
        let dialog = cancel
            .closest(".dialog-backdrop")
            .ok()
            .flatten()
            .or_else(|| cancel.closest(".dialog").ok().flatten());
        match (dialog, window().history()) {
            (Some(dialog), Ok(history))
                if history
                    .push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&href))
                    .is_ok() =>
            {
                dialog.remove();
                focus_the_opener(href.split_once('#').map_or("", |(_, f)| f));
                true
            }
            _ => click(".dialog .dialog-cancel a"),
        }
    }

    /// What Tab may reach in a dialog.
    const FOCUSABLE: &str = "a[href], button:not([disabled]), input:not([type='hidden']):not([disabled]), \
                             select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex='-1'])";

    /// Keeps Tab inside the open dialog: past its last control to its first,
    /// and back. Says whether it moved focus itself.
    fn keep_tab_in_dialog(backwards: bool) -> bool {
        let Some(dialog) = find(".dialog[aria-modal='true']") else {
            return false;
        };
        let Ok(found) = dialog.query_selector_all(FOCUSABLE) else {
            return false;
        };
        let controls: Vec<HtmlElement> = (0..found.length())
            .filter_map(|i| found.item(i)?.dyn_into::<HtmlElement>().ok())
            // Shown ones: a control inside a closed part has no box.
            .filter(|el| el.offset_parent().is_some())
            .collect();
        let (Some(first), Some(last)) = (controls.first(), controls.last()) else {
            return false;
        };
        let active = document().active_element();
        let inside = active
            .as_ref()
            .is_some_and(|a| dialog.contains(Some(a.unchecked_ref())));
        let at = |el: &HtmlElement| {
            active
                .as_ref()
                .is_some_and(|a| a == el.unchecked_ref::<Element>())
        };
        let to = match (inside, backwards) {
            (false, false) => first,
            (false, true) => last,
            (true, false) if at(last) => first,
            (true, true) if at(first) => last,
            _ => return false,
        };
        let _ = to.focus();
        true
    }

    /// Gives focus back to the link that opened a dialog, named by the
    /// fragment its Cancel link carries (`urls::back_to_opener`).
    fn focus_the_opener(fragment: &str) {
        let id = fragment.trim_start_matches('#');
        if id.is_empty() || find(".dialog[aria-modal='true']").is_some() {
            return;
        }
        if let Some(el) = document()
            .get_element_by_id(id)
            .and_then(|el| el.dyn_into::<HtmlElement>().ok())
        {
            let _ = el.focus();
        }
    }

    fn focus_filter() -> bool {
        focus_field(FILTER)
    }

    fn focus_jump() -> bool {
        focus_field(JUMP)
    }

    fn focus_field(selector: &str) -> bool {
        match find(selector).and_then(|el| el.dyn_into::<HtmlInputElement>().ok()) {
            Some(input) => {
                let _ = input.focus();
                input.select();
                true
            }
            None => false,
        }
    }

    /// Through the navigation's own link, so the router moves without a
    /// reload, as a click would.
    fn go_to(path: &str) -> bool {
        if !click(&format!("header.top nav a[href='{path}']")) {
            let _ = window().location().set_href(path);
        }
        true
    }

    /// The table rows that have a link to open.
    fn rows() -> Vec<Element> {
        let Ok(list) = document().query_selector_all(ROWS) else {
            return vec![];
        };
        (0..list.length())
            .filter_map(|i| list.item(i)?.dyn_into::<Element>().ok())
            .filter(|row| first_link(row).is_some())
            .collect()
    }

    fn first_link(row: &Element) -> Option<HtmlElement> {
        row.query_selector("a[href]")
            .ok()
            .flatten()?
            .dyn_into()
            .ok()
    }

    fn move_row(row: &Cell<Option<usize>>, step: isize) -> bool {
        let rows = rows();
        if rows.is_empty() {
            return false;
        }
        let last = rows.len() - 1;
        let next = match row.get() {
            None if step > 0 => 0,
            None => last,
            Some(at) => at.min(last).saturating_add_signed(step).min(last),
        };
        for r in &rows {
            let _ = r.remove_attribute(CURRENT);
        }
        let _ = rows[next].set_attribute(CURRENT, "");
        let options = web_sys::ScrollIntoViewOptions::new();
        options.set_block(web_sys::ScrollLogicalPosition::Nearest);
        rows[next].scroll_into_view_with_scroll_into_view_options(&options);
        row.set(Some(next));
        true
    }

    fn open_row(row: &Cell<Option<usize>>) -> bool {
        // Enter on a focused link or button is the browser's own.
        let on_control = document()
            .active_element()
            .is_some_and(|el| matches!(el.tag_name().as_str(), "A" | "BUTTON"));
        if on_control {
            return false;
        }
        let Some(at) = row.get() else { return false };
        match rows().get(at).and_then(first_link) {
            Some(link) => {
                link.click();
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g_then_a_letter_goes_to_a_page() {
        let mut keys = Keys::default();
        assert_eq!(keys.press("g", false, false), None);
        assert_eq!(keys.press("n", false, false), Some(Command::GoTo("/nodes")));
        // A letter without g is not a page; g then an unknown letter is nothing.
        assert_eq!(keys.press("n", false, false), None);
        assert_eq!(keys.press("g", false, false), None);
        assert_eq!(keys.press("x", false, false), None);
        assert_eq!(keys.press("m", false, false), None);
    }

    #[test]
    fn nothing_fires_while_typing_but_escape() {
        let mut keys = Keys::default();
        for key in ["/", "g", "j", "k", "?", "Enter"] {
            assert_eq!(keys.press(key, true, false), None, "{key}");
        }
        for key in ["/", "g", "j", "?", "Enter"] {
            assert_eq!(keys.press(key, false, true), None, "{key} with Ctrl");
        }
        assert_eq!(keys.press("Escape", true, false), Some(Command::Escape));
        // Ctrl+K jumps, even from a field.
        assert_eq!(keys.press("k", true, true), Some(Command::Jump));
        assert_eq!(keys.press("K", false, true), Some(Command::Jump));
    }

    #[test]
    fn each_key_asks_for_its_command() {
        let mut keys = Keys::default();
        assert_eq!(keys.press("/", false, false), Some(Command::FocusFilter));
        assert_eq!(keys.press("j", false, false), Some(Command::NextRow));
        assert_eq!(keys.press("k", false, false), Some(Command::PreviousRow));
        assert_eq!(keys.press("Enter", false, false), Some(Command::OpenRow));
        assert_eq!(keys.press("?", false, false), Some(Command::ToggleHelp));
    }
}
