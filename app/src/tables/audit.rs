//! The audit's table: one row per attempt, newest first, in operator
//! words: "cordon" of a node (linked), the operator's reason, and how it
//! ended ("refused because …").

use leptos::prelude::*;

use crate::event_lines::ActionWords;
use crate::format;
use crate::server_fns::audit::{AuditRecord, Outcome};
use crate::table::{Cell, Column, Exported, ExportedTable, Field, TableRow};
use crate::urls;

/// "done", "refused because this console is read-only ×499", "done (the
/// client left before the answer)".
fn outcome_text(r: &AuditRecord) -> String {
    let because = r.reason.as_deref().unwrap_or("of no reason given");
    let mut text = match r.outcome {
        Outcome::Done => "done".to_string(),
        Outcome::Sent => "sent, no answer recorded".to_string(),
        Outcome::Refused => format!("refused because {because}"),
        Outcome::Failed => format!("failed because {because}"),
    };
    if r.times > 1 {
        text.push_str(&format!(" ×{}", r.times));
    }
    if r.client_left {
        text.push_str(" (the client left before the answer)");
    }
    text
}

/// The fields worth a glance, in a stable order; the log has them all.
fn target_text(record: &AuditRecord) -> String {
    record
        .target
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "back" | "confirm" | "token"))
        .map(|(k, v)| match v {
            serde_json::Value::String(s) => format!("{k}={s}"),
            serde_json::Value::Array(items) => format!("{k}: {} items", items.len()),
            other => format!("{k}={other}"),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// What it was about: the node (linked), or the paths of a collection.
fn of_view(r: &AuditRecord) -> AnyView {
    let node = r.target_text("node").map(str::to_string);
    let paths = r
        .target
        .get("paths")
        .and_then(|p| p.as_array())
        .map(|p| format::count(p.len(), "path", "paths"));
    match (node, paths) {
        (Some(node), paths) => view! {
            <a href=urls::node(&node)>{node.clone()}</a>
            {paths.map(|p| format!(" ({p})"))}
        }
        .into_any(),
        (None, Some(paths)) => format!("{paths} on every node").into_any(),
        (None, None) => format::DASH.into_any(),
    }
}

impl TableRow for AuditRecord {
    type Dates = crate::dated::Undated;
    const KEY_ATTR: &'static str = "data-attempt";
    const EXPORTED_AS: Option<ExportedTable> = Some(ExportedTable::Audit);
    const COLUMNS: &'static [Column<Self>] = &[
        Column::<Self>::new("time", "Time (UTC)", |r| {
            r.time.replace('T', " ").replace('Z', "").into_any()
        })
        .class("time"),
        Column::<Self>::new("cluster", "Cluster", |r| {
            r.cluster.clone().unwrap_or_else(|| "-".into()).into_any()
        }),
        Column::<Self>::new("who", "Who", |r| r.actor.clone().into_any()),
        Column::<Self>::new("from", "From", |r| {
            r.peer.clone().unwrap_or_else(|| "-".into()).into_any()
        }),
        Column::<Self>::new("action", "Action", |r| {
            let action = r.action_with_state();
            view! { <span title=action.clone()>{ActionWords::of(&r.action, r.target_text("state")).asked}</span> }.into_any()
        }),
        Column::<Self>::new("of", "Of", |r| of_view(r)),
        Column::<Self>::new("why", "Why", |r| {
            r.target_text("reason")
                .unwrap_or(format::DASH)
                .to_string()
                .into_any()
        }),
        Column::<Self>::new("outcome", "Outcome", |r| outcome_text(r).into_any()),
    ];
    const ROW_HEADER: Option<usize> = Some(2);

    /// An attempt's number and what the record says of it: an attempt
    /// shown as sent is another row once it is done.
    fn key(&self) -> String {
        format!("{} {}", self.attempt, self.outcome.as_str())
    }

    fn mark(&self) -> Option<&'static str> {
        Some(match self.outcome {
            Outcome::Sent => "outcome-sent",
            Outcome::Done => "outcome-done",
            Outcome::Refused => "outcome-refused",
            Outcome::Failed => "outcome-failed",
        })
    }
}

impl Exported for AuditRecord {
    const FIELDS: &'static [Field<Self>] = &[
        Field::new("attempt", |r| Cell::Int(r.attempt as i64)),
        Field::new("time", |r| Cell::text(&r.time)),
        Field::new("cluster", |r| {
            Cell::text(r.cluster.as_deref().unwrap_or_default())
        }),
        Field::new("actor", |r| Cell::text(&r.actor)),
        Field::new("user", |r| {
            Cell::text(r.user.as_deref().unwrap_or_default())
        }),
        Field::new("peer", |r| {
            Cell::text(r.peer.as_deref().unwrap_or_default())
        }),
        Field::new("action", |r| Cell::text(&r.action)),
        Field::new("target", |r| Cell::text(&target_text(r))),
        Field::new("outcome", |r| Cell::Text(r.outcome.as_str().into())),
        Field::new("reason", |r| {
            Cell::text(r.reason.as_deref().unwrap_or_default())
        }),
        Field::new("times", |r| Cell::Int(r.times.max(1) as i64)),
        Field::new("client_left", |r| Cell::Bool(r.client_left)),
    ];
}
