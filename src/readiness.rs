//! `/healthz` says the console is up; `/readyz` says it can serve what it is
//! for, so a load balancer stops sending viewers to a console whose admin
//! API is gone. Ready when the admin API answered within the last two
//! refresh periods, or answers now (a console nobody is viewing makes no
//! calls, so readiness asks for itself then).

use std::time::Duration;

use app::server::ConsoleContext;
use axum::extract::State;
use axum::http::StatusCode;

/// A load balancer's check gives up after a few seconds; so does this one.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

pub async fn readyz(State(console): State<ConsoleContext>) -> (StatusCode, String) {
    let fresh = console.ui.refresh_period() * 2;
    if console
        .admin_api
        .since_last_answer()
        .is_some_and(|age| age <= fresh)
    {
        return (StatusCode::OK, "ready\n".into());
    }
    // Through the shared snapshot: a load balancer's checks add no load.
    let probe = console.snapshots.nodes();
    match tokio::time::timeout(PROBE_TIMEOUT, probe).await {
        Ok(Ok(_)) => (StatusCode::OK, "ready\n".into()),
        Ok(Err(e)) => (StatusCode::SERVICE_UNAVAILABLE, format!("not ready: {e}\n")),
        Err(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "not ready: the llmgw admin API at {} did not answer within {} s\n",
                console.admin_api.address(),
                PROBE_TIMEOUT.as_secs()
            ),
        ),
    }
}
