//! The rejections on a model's explain page, laid out as a table: each one
//! beside the node it names as it is now, and what would change it.

use leptos::prelude::*;

use crate::admin_api::types::{NodeView, Rejection};
use crate::components::{FixHints, StateBadge};
use crate::fixes::Fix;
use crate::format;
use crate::table::{Column, SortKey, TableRow};
use crate::urls;

/// A rejected node as it is now: its state and capacity beside the reason,
/// since the reason may no longer hold.
#[component]
pub fn LiveNode(node: String, live: Option<NodeView>) -> impl IntoView {
    if node.is_empty() {
        return view! { <span class="muted">"-"</span> }.into_any();
    }
    view! {
        <span class="live-node">
            <a class="id" href=urls::node(&node)>{node.clone()}</a>
            {match live {
                Some(n) => view! {
                    " " <StateBadge state=n.state.clone() />
                    <span class="capacity">
                        {format!(" {} · disk {}", format::gpus(&n), format::disk(n.disk_free_gb, n.disk_total_gb))}
                        {(!n.unhealthy.is_empty()).then(|| format!(" · {} unhealthy GPU(s)", n.unhealthy.len()))}
                    </span>
                }
                    .into_any(),
                None => view! { " " <span class="muted">"(no longer listed)"</span> }.into_any(),
            }}
        </span>
    }
    .into_any()
}

/// A rejection, the node it names as it is now, and what would change it.
#[derive(Clone, Debug, PartialEq)]
pub struct RejectionRow {
    pub rejection: Rejection,
    live: Option<NodeView>,
    pub fixes: Vec<Fix>,
}

impl RejectionRow {
    pub fn of(rejection: &Rejection, live: Option<NodeView>, fixes: Vec<Fix>) -> Self {
        Self {
            live,
            fixes,
            rejection: rejection.clone(),
        }
    }
}

/// A text that sorts after every known one when it is empty.
fn text_key(text: &str) -> SortKey {
    if text.is_empty() {
        SortKey::Unknown
    } else {
        SortKey::Text(text.to_string())
    }
}

impl TableRow for RejectionRow {
    type Dates = crate::dated::Undated;
    const KEY_ATTR: &'static str = "data-rejection";
    const COLUMNS: &'static [Column<Self>] = &[
        Column::<Self>::new("profile", "Profile", |r| {
            r.rejection.profile.clone().into_any()
        })
        .sort(|r| text_key(&r.rejection.profile))
        .text(|r| r.rejection.profile.clone()),
        Column::<Self>::new("pool", "Pool", |r| {
            format::or_dash(&r.rejection.pool).into_any()
        })
        .sort(|r| text_key(&r.rejection.pool))
        .text(|r| r.rejection.pool.clone()),
        Column::<Self>::new("node", "Node, as it is now", |r| {
            view! { <LiveNode node=r.rejection.node.clone() live=r.live.clone() /> }.into_any()
        })
        .sort(|r| text_key(&r.rejection.node))
        .text(|r| r.rejection.node.clone()),
        Column::<Self>::new("reason", "Reason", |r| {
            r.rejection.reason.clone().into_any()
        })
        .class("reason")
        .sort(|r| text_key(&r.rejection.reason))
        .text(|r| r.rejection.reason.clone()),
        Column::<Self>::new("fixes", "What would change it", |r| {
            view! { <FixHints fixes=r.fixes.clone() /> }.into_any()
        })
        .class("fixes-cell"),
    ];
    const ROW_HEADER: Option<usize> = None;

    fn key(&self) -> String {
        let r = &self.rejection;
        format!("{} {} {} {}", r.node, r.profile, r.pool, r.reason)
    }
}
