//! `/audit`: the latest attempts at a change made through this console,
//! refused ones included, newest first. The full record is the log's
//! `audit` target (and `--audit-log`); this page keeps the last few hundred.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::components::LiveTable;
use crate::server_fns::audit::recent_audit;

#[component]
pub fn AuditPage() -> impl IntoView {
    view! {
        <Title text=crate::site_map::AUDIT.title />
        <h1>"Audit"</h1>
        <p class="lede">
            "Every attempt at a change of this cluster through this console since it "
            "started, refused ones included (and those refused before they named a "
            "cluster). The full record, of every cluster, is in the console's log (and "
            "its audit log file)."
        </p>
        <LiveTable
            fetch=recent_audit
            class="data audit"
            noun="attempts"
            one="attempt"
            empty="No change has been attempted through this console since it started."
        />
    }
}
