//! A connection's bytes, watched: one on which nothing moves either way
//! for a while, or whose client has stopped taking an answer, fails, and
//! hyper closes it. Timeouts on the request's head are hyper's own; these
//! cover what comes after, for as long as the connection lives.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// A connection that fails once nothing has moved on it for `idle`, or a
/// write has waited on the client for `write_stall`.
pub struct Watched<S> {
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
    pub fn new(stream: S, idle: Duration, write_stall: Duration) -> Self {
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
}
