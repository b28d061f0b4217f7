//! `GET /updates`: the change feed as server-sent events, one heartbeat per
//! event. A plain GET with nothing to change, so every protection of a read
//! applies; the browser's `EventSource` reconnects by itself after a restart,
//! and waits `retry` before it does.

use std::convert::Infallible;

use app::heartbeat::Heartbeat;
use app::server::ConsoleContext;
use app::server::change_feed::Beat;
use axum::extract::State;
use axum::http::{HeaderName, HeaderValue};
use axum::response::IntoResponse;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::stream;

pub async fn updates(State(console): State<ConsoleContext>) -> impl IntoResponse {
    let beats = console.listen_for_changes();
    let retry = console
        .snapshots
        .period()
        .max(std::time::Duration::from_secs(1));
    let events = stream::unfold((beats, true), move |(mut beats, first)| async move {
        let mut waited = !first;
        loop {
            if waited && beats.changed().await.is_err() {
                return None;
            }
            waited = true;
            let beat = *beats.borrow_and_update();
            match beat {
                Beat::Closed => return None,
                Beat::Quiet => {}
                Beat::Pulse(heartbeat) => {
                    let event = event_of(heartbeat).retry(retry);
                    return Some((Ok::<_, Infallible>(event), (beats, false)));
                }
            }
        }
    });
    (
        // A proxy that buffers answers would hold every heartbeat back.
        [(
            HeaderName::from_static("x-accel-buffering"),
            HeaderValue::from_static("no"),
        )],
        Sse::new(events).keep_alive(KeepAlive::default()),
    )
}

fn event_of(heartbeat: Heartbeat) -> Event {
    let data = serde_json::to_string(&heartbeat).unwrap_or_default();
    Event::default().data(data)
}
