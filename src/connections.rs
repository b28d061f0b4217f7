//! Accepting connections, each bounded in time and in number, so that
//! clients that are slow, idle or never read cannot hold the console's
//! descriptors or memory, and `/healthz` answers whatever they do (Go's
//! `http.Server` timeouts; nginx's connections per client).
//!
//! - A request's head must arrive within [`Limits::header_read`]; the same
//!   limit closes a keep-alive connection that sends no next request.
//! - A connection on which no byte moves either way for [`Limits::idle`]
//!   is closed; so is one whose client has not taken a byte of an answer
//!   for [`Limits::write_stall`].
//! - At most [`Limits::per_peer`] connections from one address,
//!   [`Limits::per_network`] from its network (a /24, or an IPv6 /64, so a
//!   crowd of addresses buys no more room) and [`Limits::connections`] in
//!   all (below the process's descriptor limit). Past a bound, a newcomer
//!   holding clearly less than the largest holder takes that holder's
//!   oldest connection, which is closed politely ([`crate::places`]);
//!   otherwise it is answered 503 with `Retry-After` and closed. So no
//!   crowd, however spread, keeps a health check or an operator out: they
//!   hold nothing, and the crowd holds the most. (A second listener for
//!   health alone, as Kubernetes components have, would keep `/healthz`
//!   answering but not the pages, and be one more port to secure.)
//! - Open pages' change streams have places of their own, per peer, per
//!   network and in all, half as many as connections; past half of those,
//!   a new stream lasts minutes rather than half an hour. Behind a trusted
//!   proxy they are counted per user, once the request names one.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper::server::conn::http1::Builder;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tower::ServiceExt;

use tokio::sync::watch;

use crate::places::{Bounds, Place, Places, network_of};
use crate::watched::Watched;

#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub connections: usize,
    pub per_peer: usize,
    pub per_network: usize,
    pub streams_per_peer: usize,
    pub header_read: Duration,
    pub idle: Duration,
    pub write_stall: Duration,
}

/// Descriptors kept for everything but client connections: the listener,
/// the admin API's connections, the audit file, the log.
const RESERVED_DESCRIPTORS: usize = 256;

impl Limits {
    /// A browser opens six connections to a host and a page holds one
    /// stream; an office behind one NAT address is a few dozen operators.
    pub fn for_this_process() -> Self {
        let descriptors = open_file_limit().unwrap_or(1024);
        Self {
            connections: descriptors
                .saturating_sub(RESERVED_DESCRIPTORS)
                .clamp(64, 10_000),
            per_peer: 256,
            per_network: 1_024,
            streams_per_peer: 128,
            header_read: Duration::from_secs(20),
            idle: Duration::from_secs(60),
            write_stall: Duration::from_secs(20),
        }
    }
}

/// The process's soft limit on open files, as Linux reports it.
fn open_file_limit() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// Open change streams, by who holds them (an address, or a user behind a
/// trusted proxy), by network and in all.
pub type PeerStreams = Places<String, String>;

/// One open stream's place, carried with its request (whose extensions
/// are cloned) and freed with the stream.
pub type StreamSlot = Arc<HeldStream>;

#[derive(Debug)]
pub struct HeldStream {
    pub place: Place<String, String>,
    /// Taken while half or more of the places were held.
    pub crowded: bool,
}

impl Limits {
    pub fn stream_places(&self) -> PeerStreams {
        Places::new(Bounds {
            per_key: self.streams_per_peer,
            per_group: self.per_network,
            in_all: (self.connections / 2).max(1),
        })
    }
}

/// How long a connection told to yield has to finish what it is sending.
const YIELD_GRACE: Duration = Duration::from_secs(2);

/// How long open answers have to finish once the console is stopping.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// A connection refused for want of room: a few bytes saying so, then
/// closed. At most this many are being told at once; the rest are closed
/// at once.
const REFUSING_AT_ONCE: usize = 256;

const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nConnection: close\r\n\
Content-Type: text/plain; charset=utf-8\r\nContent-Length: 55\r\n\r\n\
too many connections to the console; try again shortly\n";

/// Serves `app` on `listener` until `shutdown` resolves, then lets open
/// answers finish for a few seconds.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let places = Places::new(Bounds {
        per_key: limits.per_peer,
        per_group: limits.per_network,
        in_all: limits.connections,
    });
    let stopping = watch::Sender::new(false);
    let refusing = Arc::new(AtomicUsize::new(0));
    // HTTP/1.1 only: browsers speak HTTP/2 only over TLS, which the
    // console leaves to the proxy in front of it, and cleartext HTTP/2
    // (a proxy's h2c) was 0.4 MB of the binary that nothing used.
    let mut builder = Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of descriptors, or a connection reset before it
                    // was taken: wait a moment rather than spin.
                    tracing::warn!("accepting a connection failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let ip = peer.ip().to_canonical();
        // A trusted proxy's connections are bounded like any other's: the
        // default trusts loopback, and every local client would otherwise
        // be bounded only in all.
        let Some(place) = places.take(network_of(ip), ip) else {
            refuse(stream, &refusing);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let io = TokioIo::new(Watched::new(stream, limits.idle, limits.write_stall));
        let app = app.clone();
        let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
            req.extensions_mut().insert(ConnectInfo::<SocketAddr>(peer));
            app.clone().oneshot(req)
        });
        let connection = builder.serve_connection(io, service);
        let mut stop = stopping.subscribe();
        tokio::spawn(async move {
            let mut connection = std::pin::pin!(connection);
            let grace = tokio::select! {
                ended = connection.as_mut() => {
                    if let Err(e) = ended {
                        tracing::debug!("a connection ended: {e}");
                    }
                    return;
                }
                () = place.yielded() => YIELD_GRACE,
                _ = stop.changed() => SHUTDOWN_GRACE,
            };
            // No new request on it; the answer under way may finish.
            connection.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(grace, connection).await;
        });
    }
    drop(listener);
    stopping.send_replace(true);
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, stopping.closed()).await;
    Ok(())
}

fn refuse(mut stream: TcpStream, refusing: &Arc<AtomicUsize>) {
    if refusing.fetch_add(1, Ordering::SeqCst) >= REFUSING_AT_ONCE {
        refusing.fetch_sub(1, Ordering::SeqCst);
        return;
    }
    let refusing = refusing.clone();
    tokio::spawn(async move {
        let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(BUSY)).await;
        let _ = tokio::time::timeout(Duration::from_secs(1), stream.shutdown()).await;
        refusing.fetch_sub(1, Ordering::SeqCst);
    });
}
