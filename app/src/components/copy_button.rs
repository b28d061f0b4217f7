//! "Copy" beside an `llmgw ctl` command, and "Copy link" for the view on
//! screen, for the operator who pastes into a terminal or a chat. The buttons
//! appear once the page runs: without JavaScript they could not copy, and the
//! command and the address bar are there to select.

use leptos::prelude::*;

/// Copies `text`.
#[island]
pub fn CopyButton(
    text: String,
    /// What is copied, for screen readers: "the command".
    what: String,
) -> impl IntoView {
    view! { <Copier text=move || text.clone() label="Copy" what /> }
}

/// Copies the address of the view on screen (filters, sort and dialog
/// included): what a chat needs to open exactly this.
#[island]
pub fn CopyLinkButton() -> impl IntoView {
    view! { <Copier text=page_address label="Copy link" what="the link to this view".to_string() /> }
}

fn page_address() -> String {
    window().location().href().unwrap_or_default()
}

#[component]
fn Copier(
    text: impl Fn() -> String + Send + Sync + 'static,
    label: &'static str,
    what: String,
) -> impl IntoView {
    let running = RwSignal::new(false);
    Effect::new(move |_| running.set(true));
    let copied = RwSignal::new(false);
    let text = Callback::new(move |()| text());
    let on_click = move |_| {
        let text = text.run(());
        leptos::task::spawn_local(async move {
            if copy(&text).await {
                copied.set(true);
                set_timeout(move || copied.set(false), std::time::Duration::from_secs(2));
            }
        });
    };
    move || {
        running.get().then(|| {
            view! {
                <button
                    type="button"
                    class="copy"
                    data-copied=move || copied.get().then_some("")
                    aria-label=format!("{label}: {what}")
                    on:click=on_click
                >
                    {move || if copied.get() { "Copied" } else { label }}
                </button>
            }
        })
    }
}

/// Puts `text` on the clipboard. The clipboard API exists only on secure
/// origins (https, or this machine); a console served over plain http
/// elsewhere offers the text selected in a prompt instead, for Ctrl-C.
async fn copy(text: &str) -> bool {
    #[cfg(feature = "hydrate")]
    {
        let window = window();
        if window.is_secure_context() {
            let promise = window.navigator().clipboard().write_text(text);
            if wasm_bindgen_futures::JsFuture::from(promise).await.is_ok() {
                return true;
            }
        }
        let _ = window.prompt_with_message_and_default("Copy with Ctrl-C:", text);
        false
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = text;
        false
    }
}
