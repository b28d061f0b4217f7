//! `GET /updates`: the change feed as server-sent events, one heartbeat per
//! event. A plain GET with nothing to change, so every protection of a read
//! applies; the browser's `EventSource` reconnects by itself after a restart,
//! and waits `retry` before it does. A stream holds a connection, so each
//! ends after [`LIFETIME`] (the browser reconnects as after a restart), or
//! sooner when streams are crowded or a newcomer takes its place, and the
//! pipeline caps how many one address holds open.

use std::convert::Infallible;

use app::heartbeat::Heartbeat;
use app::server::ConsoleContext;
use app::server::change_feed::Beat;
use app::server::clusters::InCluster;
use app::server::context::listen_to;
use axum::Extension;
use axum::extract::State;
use axum::http::{HeaderName, HeaderValue, Uri};
use axum::response::IntoResponse;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::{StreamExt, future, stream};
use tokio::sync::watch;

use crate::connections::StreamSlot;

/// How long one stream lasts before the browser is made to reconnect: long
/// enough to cost nothing, short enough that a connection is never held
/// for good, and a little different for each stream so that the pages
/// opened together do not all reconnect together.
pub const LIFETIME: std::time::Duration = std::time::Duration::from_secs(30 * 60);

/// How long a stream lasts when it was opened with half or more of the
/// streams' places held: a crowd's streams turn over, and each turn is a
/// chance for the places to go to someone else.
pub const CROWDED_LIFETIME: std::time::Duration = std::time::Duration::from_secs(2 * 60);

pub async fn updates(
    State(console): State<ConsoleContext>,
    scope: Option<Extension<InCluster>>,
    slot: Option<Extension<StreamSlot>>,
    uri: Uri,
) -> impl IntoResponse {
    let console = console.for_request(scope.as_ref().map(|e| &e.0));
    // A page about one cluster hears that cluster; a page about several
    // hears the clusters it shows, and keeps each of them polled.
    let listened: Vec<_> = console
        .shown_clusters(uri.query())
        .iter()
        .map(|c| listen_to(c, &console.audit))
        .collect();
    let retry = console
        .cluster
        .snapshots
        .period()
        .max(std::time::Duration::from_secs(1));
    let events = stream::unfold((listened, true), move |(mut beats, first)| async move {
        let mut waited = !first;
        loop {
            if waited {
                let changes = beats.iter_mut().map(|b| Box::pin(b.changed()));
                let (changed, _, _) = future::select_all(changes).await;
                if changed.is_err() {
                    return None;
                }
            }
            waited = true;
            match together(&mut beats) {
                Beat::Closed => return None,
                Beat::Quiet => {}
                Beat::Pulse(heartbeat) => {
                    let event = event_of(heartbeat).retry(retry);
                    return Some((Ok::<_, Infallible>(event), (beats, false)));
                }
            }
        }
    });
    let slot = slot.map(|Extension(slot)| slot);
    let lifetime = if slot.as_ref().is_some_and(|s| s.crowded) {
        CROWDED_LIFETIME
    } else {
        LIFETIME
    };
    let jitter = std::time::Duration::from_millis(
        u64::from(std::process::id() ^ beats_salt()) % (lifetime.as_millis() as u64 / 30),
    );
    let held = slot.clone();
    let ends = async move {
        let life = tokio::time::sleep(lifetime + jitter);
        match held {
            // A newcomer took the stream's place: it ends now, and the
            // browser comes back after `retry`.
            Some(held) => tokio::select! {
                () = life => {}
                () = held.place.yielded() => {}
            },
            None => life.await,
        }
    };
    // The stream's place is given back when the stream ends.
    let events = events.take_until(ends).map(move |event| {
        let _held = &slot;
        event
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

/// The heartbeats of every cluster listened to, as one: it moves when any
/// of them moves, is ok when all of them are, and its pulse counts the
/// trouble of all. Of one cluster, that cluster's heartbeat.
fn together(beats: &mut [watch::Receiver<Beat>]) -> Beat {
    let mut heard: Option<Heartbeat> = None;
    for receiver in beats.iter_mut() {
        match *receiver.borrow_and_update() {
            Beat::Closed => return Beat::Closed,
            Beat::Quiet => {}
            Beat::Pulse(h) => heard = Some(heard.map_or(h, |all| all.merge(h))),
        }
    }
    heard.map_or(Beat::Quiet, Beat::Pulse)
}

fn event_of(heartbeat: Heartbeat) -> Event {
    let data = serde_json::to_string(&heartbeat).unwrap_or_default();
    Event::default().data(data)
}

/// A little difference between streams opened at once.
fn beats_salt() -> u32 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos())
}
