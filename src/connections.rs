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
//! - At most [`Limits::per_peer`] connections from one address and
//!   [`Limits::connections`] in all (below the process's descriptor limit);
//!   past either, a connection is answered 503 with `Retry-After` and
//!   closed. Open pages' change streams are capped per address as well.

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::{Instant, Sleep};
use tower::ServiceExt;

#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub connections: usize,
    pub per_peer: usize,
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

/// Open connections, in all and by peer.
#[derive(Clone, Debug)]
struct Counts {
    limits: Limits,
    total: Arc<AtomicUsize>,
    by_peer: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

/// One admitted connection; dropping it frees its place.
struct Admitted {
    counts: Counts,
    peer: IpAddr,
}

impl Counts {
    fn new(limits: Limits) -> Self {
        Self {
            limits,
            total: Arc::default(),
            by_peer: Arc::default(),
        }
    }

    fn admit(&self, peer: IpAddr) -> Option<Admitted> {
        let mut by_peer = self.by_peer.lock().unwrap_or_else(PoisonError::into_inner);
        let here = by_peer.entry(peer).or_default();
        if *here >= self.limits.per_peer
            || self.total.load(Ordering::SeqCst) >= self.limits.connections
        {
            if *here == 0 {
                by_peer.remove(&peer);
            }
            return None;
        }
        *here += 1;
        self.total.fetch_add(1, Ordering::SeqCst);
        Some(Admitted {
            counts: self.clone(),
            peer,
        })
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let mut by_peer = self
            .counts
            .by_peer
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(here) = by_peer.get_mut(&self.peer) {
            *here -= 1;
            if *here == 0 {
                by_peer.remove(&self.peer);
            }
        }
        self.counts.total.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Open change streams by peer.
#[derive(Clone, Debug)]
pub struct PeerStreams {
    per_peer: usize,
    open: Arc<Mutex<HashMap<Option<IpAddr>, usize>>>,
}

/// One open stream's place; freed when the last copy is dropped, with the
/// stream.
#[derive(Clone, Debug)]
pub struct StreamSlot(#[allow(dead_code)] Arc<SlotInner>);

#[derive(Debug)]
struct SlotInner {
    streams: PeerStreams,
    peer: Option<IpAddr>,
}

impl PeerStreams {
    pub fn new(per_peer: usize) -> Self {
        Self {
            per_peer,
            open: Arc::default(),
        }
    }

    pub fn open(&self, peer: Option<IpAddr>) -> Option<StreamSlot> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let here = open.entry(peer).or_default();
        if *here >= self.per_peer {
            return None;
        }
        *here += 1;
        Some(StreamSlot(Arc::new(SlotInner {
            streams: self.clone(),
            peer,
        })))
    }

    /// Streams open now, from everyone.
    pub fn count(&self) -> usize {
        self.open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .sum()
    }
}

impl Drop for SlotInner {
    fn drop(&mut self) {
        let mut open = self
            .streams
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(here) = open.get_mut(&self.peer) {
            *here -= 1;
            if *here == 0 {
                open.remove(&self.peer);
            }
        }
    }
}

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
    let counts = Counts::new(limits);
    let refusing = Arc::new(AtomicUsize::new(0));
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read);
    builder
        .http2()
        .timer(TokioTimer::new())
        .keep_alive_interval(Some(limits.idle / 2))
        .keep_alive_timeout(limits.header_read);
    let graceful = GracefulShutdown::new();
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
        let Some(admitted) = counts.admit(peer.ip().to_canonical()) else {
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
        let connection = graceful.watch(builder.serve_connection(io, service).into_owned());
        tokio::spawn(async move {
            let _place = admitted;
            if let Err(e) = connection.await {
                tracing::debug!("a connection ended: {e}");
            }
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(Duration::from_secs(10)) => {}
    }
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

/// A connection that fails once nothing has moved on it for `idle`, or a
/// write has waited on the client for `write_stall`.
struct Watched<S> {
    stream: S,
    idle: Duration,
    write_stall: Duration,
    last_progress: Instant,
    /// When the oldest write still waiting on the client began to wait.
    write_waiting_since: Option<Instant>,
    /// One timer for each direction: a read and a write may wait at once.
    read_timer: Pin<Box<Sleep>>,
    write_timer: Pin<Box<Sleep>>,
}

impl<S> Watched<S> {
    fn new(stream: S, idle: Duration, write_stall: Duration) -> Self {
        let now = Instant::now();
        Self {
            stream,
            idle,
            write_stall,
            last_progress: now,
            write_waiting_since: None,
            read_timer: Box::pin(tokio::time::sleep_until(now + idle)),
            write_timer: Box::pin(tokio::time::sleep_until(now + write_stall)),
        }
    }

    fn progressed(&mut self) {
        self.last_progress = Instant::now();
    }

    /// A write's result, failed once the client has taken nothing for
    /// `write_stall`.
    fn after_write(
        &mut self,
        written: Poll<io::Result<usize>>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<usize>> {
        match written {
            Poll::Ready(result) => {
                self.write_waiting_since = None;
                if matches!(result, Ok(n) if n > 0) {
                    self.progressed();
                }
                Poll::Ready(result)
            }
            Poll::Pending => {
                let since = *self.write_waiting_since.get_or_insert_with(Instant::now);
                let deadline = since + self.write_stall;
                ready!(wait_until(
                    &mut self.write_timer,
                    deadline,
                    cx,
                    "the client stopped reading"
                ))?;
                Poll::Pending
            }
        }
    }
}

/// Pending: arms `timer` for `deadline` and fails once it has passed.
fn wait_until(
    timer: &mut Pin<Box<Sleep>>,
    deadline: Instant,
    cx: &mut Context<'_>,
    what: &str,
) -> Poll<io::Result<()>> {
    if timer.deadline() != deadline {
        timer.as_mut().reset(deadline);
    }
    match timer.as_mut().poll(cx) {
        Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
            io::ErrorKind::TimedOut,
            what.to_string(),
        ))),
        Poll::Pending => Poll::Pending,
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Watched<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        match Pin::new(&mut self.stream).poll_read(cx, buf) {
            Poll::Ready(result) => {
                if buf.filled().len() > before {
                    self.progressed();
                }
                Poll::Ready(result)
            }
            Poll::Pending => {
                let deadline = self.last_progress + self.idle;
                let this = &mut *self;
                ready!(wait_until(
                    &mut this.read_timer,
                    deadline,
                    cx,
                    "the connection was idle too long"
                ))?;
                Poll::Pending
            }
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Watched<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.after_write(written, cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.after_write(written, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_bounded_by_peer_and_in_all_and_freed_on_drop() {
        let limits = Limits {
            connections: 3,
            per_peer: 2,
            ..Limits::for_this_process()
        };
        let counts = Counts::new(limits);
        let a: IpAddr = "10.0.0.1".parse().expect("ip");
        let b: IpAddr = "10.0.0.2".parse().expect("ip");
        let a1 = counts.admit(a).expect("room");
        let _a2 = counts.admit(a).expect("room");
        assert!(counts.admit(a).is_none(), "a third from one peer");
        let _b1 = counts.admit(b).expect("room");
        assert!(counts.admit(b).is_none(), "a fourth in all");
        drop(a1);
        assert!(counts.admit(b).is_some(), "a place freed is taken again");
    }

    #[tokio::test]
    async fn a_client_that_stops_reading_is_cut_off() {
        use tokio::io::AsyncWriteExt;
        let (near, _far_never_read) = tokio::io::duplex(64);
        let mut watched = Watched::new(near, Duration::from_secs(60), Duration::from_millis(200));
        let started = std::time::Instant::now();
        let written = watched.write_all(&[b'x'; 4096]).await;
        let err = written.expect_err("the write fails once the client stalls");
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[tokio::test]
    async fn a_connection_where_nothing_moves_is_closed() {
        use tokio::io::AsyncReadExt;
        let (near, _far_silent) = tokio::io::duplex(64);
        let mut watched = Watched::new(near, Duration::from_millis(200), Duration::from_secs(60));
        let mut buf = [0u8; 8];
        let err = watched.read(&mut buf).await.expect_err("idle too long");
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
    }

    #[test]
    fn streams_are_capped_by_peer() {
        let streams = PeerStreams::new(1);
        let peer = Some("10.0.0.1".parse().expect("ip"));
        let first = streams.open(peer).expect("room");
        assert!(streams.open(peer).is_none());
        assert!(streams.open(None).is_some());
        drop(first);
        assert!(streams.open(peer).is_some());
    }
}
