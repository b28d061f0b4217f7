//! `/audit`: the latest attempts at a change made through this console,
//! refused ones included, newest first. The full record is the log's
//! `audit` target (and `--audit-log`); this page keeps the last few hundred.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::components::LiveTable;
use crate::server_fns::audit::recent_audit;

#[component]
pub fn AuditPage() -> impl IntoView {
    // One audit for every cluster; each record names its cluster, and
    // `?cluster=` keeps one.
    let ui = crate::ui_settings::UiSettings::current();
    let only_this = ui.cluster.filter(|_| ui.clusters.len() > 1).map(|c| {
        let href = crate::urls::scoped(&format!("/audit?cluster={}", c.id));
        view! { <p><a href=href>{format!("Only {}'s attempts", c.label)}</a></p> }
    });
    view! {
        <Title text=crate::site_map::AUDIT.title />
        <h1>"Audit"</h1>
        <p class="lede">
            "Every attempt at a change through this console since it started, refused ones "
            "included, on every cluster it shows. The full record is in the console's log "
            "(and its audit log file)."
        </p>
        {only_this}
        <LiveTable
            fetch=recent_audit
            class="data audit"
            noun="attempts"
            one="attempt"
            empty="No change has been attempted through this console since it started."
        />
    }
}
