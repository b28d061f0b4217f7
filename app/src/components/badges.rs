//! The small marks every list shares: a model's status and a node's state.

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
