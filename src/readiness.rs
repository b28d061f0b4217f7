//! `/healthz` says the console is up; `/readyz` says it can serve what it is
//! for, so a load balancer stops sending viewers to a console that can reach
//! no admin API at all. Ready when any cluster's admin API answered within
//! the last two refresh periods, or answers now (a console nobody is viewing
//! makes no calls, so readiness asks for itself then). One cluster that is
//! down is shown on the overview: it would be down behind every console
//! alike, and taking them all out of the load balancer would hide the
//! clusters that are up.

use std::time::Duration;

use app::server::ConsoleContext;
use axum::extract::State;
use axum::http::StatusCode;
use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;

/// A load balancer's check gives up after a few seconds; so does this one.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// Ready or not as the admin APIs say; the journal's database, when it
/// does not answer, is said on a line of its own but keeps no console out
/// of the load balancer: the live views do not need it, and on a shared
/// database every console would be out at once.
pub async fn readyz(State(console): State<ConsoleContext>) -> (StatusCode, String) {
    let (status, mut text) = admin_apis_ready(&console).await;
    if let Some(error) = console.journal.error_for_viewers() {
        text.push_str(&format!("journal: not written: {error}\n"));
    }
    (status, text)
}

async fn admin_apis_ready(console: &ConsoleContext) -> (StatusCode, String) {
    let fresh = console.ui.refresh_period() * 2;
    if console.clusters.iter().any(|c| {
        c.admin_api
            .since_last_answer()
            .is_some_and(|age| age <= fresh)
    }) {
        return (StatusCode::OK, "ready\n".into());
    }
    // Through the shared snapshots: a load balancer's checks add no load.
    let probes = console.clusters.iter().map(|c| async move {
        match tokio::time::timeout(PROBE_TIMEOUT, c.snapshots.nodes()).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!(
                "the llmgw admin API at {} did not answer within {} s",
                c.admin_api.address(),
                PROBE_TIMEOUT.as_secs()
            )),
        }
    });
    // Ready with the first cluster that answers, not once the slowest has.
    let mut probes: FuturesUnordered<_> = probes.collect();
    let mut reasons = Vec::new();
    while let Some(answer) = probes.next().await {
        match answer {
            Ok(()) => return (StatusCode::OK, "ready\n".into()),
            Err(reason) => reasons.push(reason),
        }
    }
    (
        StatusCode::SERVICE_UNAVAILABLE,
        format!("not ready: {}\n", reasons.join("; ")),
    )
}
