//! The small marks every list shares: a model's status, a node's state,
//! and since when either has held.

use leptos::prelude::*;

use crate::admin_api::types::NodeState;
use crate::format::{self, ModelStatus};

#[component]
pub fn StatusBadge(status: ModelStatus) -> impl IntoView {
    let class = format!("state status-{}", status.slug());
    view! { <span class=class>{status.label()}</span> }
}

/// A node's state in llmgw's word; one it does not know is shown as sent,
/// and a missing one as a dash.
#[component]
pub fn StateBadge(state: NodeState) -> impl IntoView {
    let class = format!("state state-{}", state.as_str().replace(' ', "-"));
    view! { <span class=class>{format::or_dash(state.as_str())}</span> }
}

/// A drain that has nothing left to move says so: llmgw keeps the node
/// "draining" until someone changes it, and an operator waiting for the
/// drain to end would otherwise wait for nothing.
#[component]
pub fn DrainDone(state: NodeState, replicas: i64) -> impl IntoView {
    (state == NodeState::Draining && replicas <= 0)
        .then(|| view! { " " <span class="drained">"drained: no replicas left"</span> })
}

/// Said on hover of every date from the journal.
pub const JOURNAL_NOTE: &str =
    "From the console's journal: a change shorter than one poll is not seen.";

/// Since when the state beside it has held, short, with the whole
/// sentence on hover; nothing where the journal does not know.
#[component]
pub fn SinceNote(since: Option<llmgw_journal::record::StateSince>) -> impl IntoView {
    since.map(|s| {
        view! {
            " "
            <span class="since" title=format!("{}. {JOURNAL_NOTE}", format::since(&s))>
                {format::since_short(&s)}
            </span>
        }
    })
}
