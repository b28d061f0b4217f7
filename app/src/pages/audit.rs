//! `/audit`: the latest attempts at a change made through this console,
//! refused ones included, newest first. The full record is the log's
//! `audit` target (and `--audit-log`); this page keeps the last few hundred.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::components::{Live, refresh_ticker};
use crate::server_fns::audit::{AuditRecord, Outcome, recent_audit};

#[component]
pub fn AuditPage() -> impl IntoView {
    let refresh = refresh_ticker();
    let records = Resource::new(move || refresh.get(), |_| recent_audit());
    view! {
        <Title text="Audit" />
        <h1>"Audit"</h1>
        <p class="lede">
            "Every attempt at a change through this console since it started, refused ones "
            "included. The full record is in the console's log (and its audit log file)."
        </p>
        <Live resource=records render=render_records />
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

fn render_records(records: Vec<AuditRecord>) -> impl IntoView {
    if records.is_empty() {
        return view! { <p class="empty">"No change has been attempted through this console since it started."</p> }
            .into_any();
    }
    view! {
        <table class="data audit">
            <thead>
                <tr>
                    <th scope="col">"Time (UTC)"</th>
                    <th scope="col">"Who"</th>
                    <th scope="col">"From"</th>
                    <th scope="col">"Action"</th>
                    <th scope="col">"Target"</th>
                    <th scope="col">"Outcome"</th>
                    <th scope="col">"Reason"</th>
                </tr>
            </thead>
            <tbody>
                {records
                    .into_iter()
                    .map(|r| {
                        let target = target_text(&r);
                        view! {
                            <tr class=format!("outcome-{}", outcome_label(r.outcome))>
                                <td class="time">{r.time.replace('T', " ").replace('Z', "")}</td>
                                <th scope="row">{r.actor}</th>
                                <td>{r.peer.unwrap_or_else(|| "-".into())}</td>
                                <td><code>{r.action}</code></td>
                                <td>{target}</td>
                                <td>{outcome_label(r.outcome)}</td>
                                <td>{r.reason.unwrap_or_else(|| "-".into())}</td>
                            </tr>
                        }
                    })
                    .collect_view()}
            </tbody>
        </table>
    }
    .into_any()
}
