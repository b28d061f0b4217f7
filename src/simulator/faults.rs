//! Switches that make the simulated admin API fail the ways a real one does,
//! so that every failure the console must survive is tested over real HTTP:
//! `POST /_simulator/fault {"fault": "slow", "for_seconds": 30}`, or
//! [`Faults::set`] in-process. `for_seconds` makes a fault clear by itself
//! (the only way back from `down` over HTTP, since nothing listens then).

use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use tokio::net::{TcpListener, TcpStream};

use super::Simulator;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fault {
    #[default]
    None,
    /// Nothing listens: connections are refused.
    Down,
    /// Connections are accepted and closed without an answer.
    Refusing,
    /// Every answer comes after `delay`, longer than any sane timeout.
    Slow,
    /// 500 with the contract's `{"error": ...}` envelope.
    ErrorEnvelope,
    /// 500 with a bare text body, as a proxy in front of llmgw answers.
    ErrorPlain,
    /// 200 with JSON cut off in the middle.
    InvalidJson,
    /// 200 with a body past the console's 64 MiB cap.
    Oversized,
    /// Every other request fails (500 with the envelope).
    Flapping,
}

/// How long `slow` waits before answering.
pub const DEFAULT_DELAY: Duration = Duration::from_secs(20);

#[derive(Debug, Deserialize)]
pub struct FaultRequest {
    pub fault: Fault,
    pub for_seconds: Option<u64>,
    pub delay_seconds: Option<u64>,
    /// Only requests whose path and query start with this fail (one
    /// model's explanation, say); every request when absent.
    pub only: Option<String>,
}

#[derive(Debug, Default)]
struct Switch {
    fault: Fault,
    until: Option<Instant>,
    delay: Option<Duration>,
    only: Option<String>,
    requests: u64,
}

/// The switch, shared by the listener and the routes.
#[derive(Clone, Debug, Default)]
pub struct Faults(Arc<Mutex<Switch>>);

impl Faults {
    fn lock(&self) -> std::sync::MutexGuard<'_, Switch> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Turns `fault` on (`Fault::None`: off), for `duration` or until changed.
    pub fn set(&self, fault: Fault, duration: Option<Duration>) {
        let mut s = self.lock();
        s.fault = fault;
        s.until = duration.map(|d| Instant::now() + d);
        s.requests = 0;
        s.only = None;
    }

    /// Limits the fault to requests whose path and query start with `prefix`.
    pub fn only(&self, prefix: Option<String>) {
        self.lock().only = prefix;
    }

    fn applies_to(&self, path_and_query: &str) -> bool {
        self.lock()
            .only
            .as_deref()
            .is_none_or(|p| path_and_query.starts_with(p))
    }

    pub fn set_delay(&self, delay: Duration) {
        self.lock().delay = Some(delay);
    }

    pub fn current(&self) -> Fault {
        let mut s = self.lock();
        if s.until.is_some_and(|t| Instant::now() >= t) {
            s.fault = Fault::None;
            s.until = None;
        }
        s.fault
    }

    fn is_down(&self) -> bool {
        self.current() == Fault::Down
    }

    /// For `flapping`: whether this request is one that fails.
    fn next_fails(&self) -> bool {
        let mut s = self.lock();
        s.requests += 1;
        s.requests % 2 == 1
    }

    fn delay(&self) -> Duration {
        self.lock().delay.unwrap_or(DEFAULT_DELAY)
    }
}

/// A response whose body fails at once: the server drops the connection
/// without a complete answer, as a crashed or unreachable server does.
fn cut_connection() -> Response {
    let failing = futures_util::stream::once(async {
        Err::<Bytes, io::Error>(io::Error::other("simulated: connection cut"))
    });
    Response::new(Body::from_stream(failing))
}

fn envelope_500() -> Response {
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        [(header::CONTENT_TYPE, "application/json")],
        r#"{"error":"simulated fault: the control plane's store is unavailable"}"#,
    )
        .into_response()
}

/// 65 MiB of a JSON array, streamed: more than the console reads.
fn oversized() -> Response {
    let chunk = Bytes::from("0,".repeat(512 * 1024));
    let body = std::iter::once(Bytes::from_static(b"["))
        .chain(std::iter::repeat_n(chunk, 65))
        .map(Ok::<Bytes, io::Error>);
    (
        [(header::CONTENT_TYPE, "application/json")],
        Body::from_stream(futures_util::stream::iter(body)),
    )
        .into_response()
}

/// Applies the switched-on fault to every admin API request; the
/// simulator's own `/_simulator/` paths always work.
pub async fn apply(State(sim): State<Simulator>, req: Request, next: Next) -> Response {
    if req.uri().path().starts_with("/_simulator/") {
        return next.run(req).await;
    }
    let faults = sim.faults();
    let target = req.uri().path_and_query().map_or("", |p| p.as_str());
    if !faults.applies_to(target) {
        return next.run(req).await;
    }
    match faults.current() {
        Fault::None => next.run(req).await,
        Fault::Down | Fault::Refusing => cut_connection(),
        Fault::Slow => {
            tokio::time::sleep(faults.delay()).await;
            next.run(req).await
        }
        Fault::ErrorEnvelope => envelope_500(),
        Fault::ErrorPlain => (
            StatusCode::INTERNAL_SERVER_ERROR,
            [(header::CONTENT_TYPE, "text/plain")],
            "upstream connect error or disconnect/reset before headers\n",
        )
            .into_response(),
        Fault::InvalidJson => (
            [(header::CONTENT_TYPE, "application/json")],
            r#"[{"id": "gpu-01", "state": "rea"#,
        )
            .into_response(),
        Fault::Oversized => oversized(),
        Fault::Flapping if faults.next_fails() => envelope_500(),
        Fault::Flapping => next.run(req).await,
    }
}

/// A listener that stops listening while the simulator is `down` (so that
/// connections are refused, as with a stopped server) and listens again on
/// the same address when it is back.
pub struct FaultyListener {
    addr: SocketAddr,
    inner: Option<TcpListener>,
    faults: Faults,
}

impl FaultyListener {
    pub fn new(listener: TcpListener, faults: Faults) -> io::Result<Self> {
        Ok(Self {
            addr: listener.local_addr()?,
            inner: Some(listener),
            faults,
        })
    }
}

/// How often a waiting listener looks at the switch.
const RECHECK: Duration = Duration::from_millis(50);

impl axum::serve::Listener for FaultyListener {
    type Io = TcpStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (TcpStream, SocketAddr) {
        loop {
            if self.faults.is_down() {
                self.inner = None;
                tokio::time::sleep(RECHECK).await;
                continue;
            }
            let Some(listener) = &self.inner else {
                match TcpListener::bind(self.addr).await {
                    Ok(l) => self.inner = Some(l),
                    Err(_) => tokio::time::sleep(RECHECK).await,
                }
                continue;
            };
            tokio::select! {
                accepted = listener.accept() => {
                    if let Ok(pair) = accepted {
                        if self.faults.current() == Fault::Refusing {
                            drop(pair);
                            continue;
                        }
                        return pair;
                    }
                }
                () = tokio::time::sleep(RECHECK) => {}
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.addr)
    }
}
