//! `/audit`: the latest attempts at a change made through this console,
//! refused ones included, newest first. The full record is the log's
//! `audit` target (and `--audit-log`); this page keeps the last few hundred.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::components::{Column, DataTable, Live, TableQuery, TableRow, use_table_query};
use crate::server_fns::audit::{AuditRecord, Outcome, recent_audit};

#[component]
pub fn AuditPage() -> impl IntoView {
    let records = Resource::new(|| (), |_| recent_audit());
    let query = use_table_query();
    view! {
        <Title text="Audit" />
        <h1>"Audit"</h1>
        <p class="lede">
            "Every attempt at a change through this console since it started, refused ones "
            "included. The full record is in the console's log (and its audit log file)."
        </p>
        <Live resource=records render=move |records| render_records(records, query) />
    }
}

fn outcome_label(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Done => "done",
        Outcome::Refused => "refused",
        Outcome::Failed => "failed",
    }
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

impl TableRow for AuditRecord {
    const KEY_ATTR: &'static str = "data-attempt";
    const COLUMNS: &'static [Column<Self>] = &[
        Column::<Self>::new("time", "Time (UTC)", |r| {
            r.time.replace('T', " ").replace('Z', "").into_any()
        })
        .class("time"),
        Column::<Self>::new("who", "Who", |r| r.actor.clone().into_any()),
        Column::<Self>::new("from", "From", |r| {
            r.peer.clone().unwrap_or_else(|| "-".into()).into_any()
        }),
        Column::<Self>::new("action", "Action", |r| {
            view! { <code>{r.action.clone()}</code> }.into_any()
        }),
        Column::<Self>::new("target", "Target", |r| target_text(r).into_any()),
        Column::<Self>::new("outcome", "Outcome", |r| {
            outcome_label(r.outcome).into_any()
        }),
        Column::<Self>::new("reason", "Reason", |r| {
            r.reason.clone().unwrap_or_else(|| "-".into()).into_any()
        }),
    ];
    const ROW_HEADER: Option<usize> = Some(1);

    /// Attempts have no id; the same one is the same time, actor, action
    /// and target.
    fn key(&self) -> String {
        format!(
            "{} {} {} {}",
            self.time,
            self.actor,
            self.action,
            target_text(self)
        )
    }

    fn mark(&self) -> Option<&'static str> {
        Some(match self.outcome {
            Outcome::Done => "outcome-done",
            Outcome::Refused => "outcome-refused",
            Outcome::Failed => "outcome-failed",
        })
    }
}

fn render_records(records: Vec<AuditRecord>, query: Memo<TableQuery>) -> impl IntoView {
    if records.is_empty() {
        return view! { <p class="empty">"No change has been attempted through this console since it started."</p> }
            .into_any();
    }
    view! { <DataTable rows=records query class="data audit" /> }.into_any()
}
