//! How many answers are made at once, and how much waits to be sent.
//!
//! Every render holds its own HTML, its serialised data and its reactive
//! graph until it is done. A hundred viewers loading a page at the same
//! moment held a hundred of those, and the allocator kept the memory after
//! they were freed: the console's RSS at 1,000 nodes rose from 15 to 45 MB,
//! by the number of viewers rather than the size of the cluster. Renders
//! are work for the CPU, so running more of them at once than there are
//! cores finishes none sooner; the rest wait their turn.
//!
//! - A turn is for making the answer, whole, not for sending it: a client
//!   that reads slowly, or never, holds no turn. What waits to be sent is
//!   bounded by bytes instead ([`Turns::sending`]).
//! - A render runs to its end in a task of its own, even when its client
//!   leaves, and keeps its turn until then: leaving early cannot start more
//!   renders at once than the limit allows.
//! - Changes have turns of their own, so a crowd of readers can never make
//!   an action wait (Kubernetes' API server keeps the same two budgets).
//! - Each cluster has both budgets of its own ([`Turns::beside`]): a render
//!   holds its turn while it waits for its cluster's admin API, and the
//!   renders waiting on a cluster that hangs must not take the turns of
//!   another's pages. What waits to be sent is one budget for all.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::body::{Body, Bytes};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use tokio::sync::Semaphore;

use crate::refusal::retry_later;

/// No page or answer of the console's comes near this; one that does is
/// refused rather than held.
pub const ANSWER_LIMIT: usize = 16 * 1024 * 1024;

/// Bytes of made answers waiting for their clients to read them, in all.
/// Past this, a new answer is refused with 503 until some are sent (or
/// their connections time out, see `connections`).
pub const SENDING_LIMIT: usize = 64 * 1024 * 1024;

/// Which budget a call takes its turn from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Pages and reads.
    Render = 0,
    /// Attempts at a change.
    Change = 1,
}

impl Kind {
    pub const ALL: [Self; 2] = [Self::Render, Self::Change];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Render => "render",
            Self::Change => "change",
        }
    }
}

/// One call counted as waiting for its turn until dropped: when it gets
/// the turn, or when its client leaves first.
struct Waiting<'a>(&'a AtomicUsize);

impl<'a> Waiting<'a> {
    fn on(count: &'a AtomicUsize) -> Self {
        count.fetch_add(1, Ordering::Relaxed);
        Self(count)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

#[derive(Clone, Debug)]
pub struct Turns {
    /// How many renders and changes at once.
    sizes: (usize, usize),
    renders: Arc<Semaphore>,
    changes: Arc<Semaphore>,
    sending: Arc<Semaphore>,
    /// Renders and changes waiting for a turn now, across every cluster's
    /// budgets: what `/metrics` says.
    waiting: Arc<[AtomicUsize; 2]>,
}

impl Turns {
    /// Two renders per core (one computing while another waits for a
    /// list), and as many changes again: a change mostly waits for llmgw.
    pub fn for_this_machine() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Self::new(2 * cores, 2 * cores, SENDING_LIMIT)
    }

    /// Budgets of renders and changes as large as these, of their own, for
    /// another cluster; the bytes waiting to be sent stay one budget.
    pub fn beside(&self) -> Self {
        Self {
            sizes: self.sizes,
            renders: Arc::new(Semaphore::new(self.sizes.0)),
            changes: Arc::new(Semaphore::new(self.sizes.1)),
            sending: self.sending.clone(),
            waiting: self.waiting.clone(),
        }
    }

    pub fn new(renders: usize, changes: usize, sending_bytes: usize) -> Self {
        let sizes = (renders.max(1), changes.max(1));
        Self {
            sizes,
            renders: Arc::new(Semaphore::new(sizes.0)),
            changes: Arc::new(Semaphore::new(sizes.1)),
            sending: Arc::new(Semaphore::new(
                sending_bytes.clamp(1, Semaphore::MAX_PERMITS),
            )),
            waiting: Arc::default(),
        }
    }

    /// Calls of `kind` waiting for a turn now.
    pub fn waiting(&self, kind: Kind) -> usize {
        self.waiting[kind as usize].load(Ordering::Relaxed)
    }

    /// Waits for a turn of `kind`, then makes the answer in a task of its
    /// own that keeps the turn until the answer is whole, whether or not
    /// anyone is still waiting for it; then hands the answer over for
    /// sending, within the send budget.
    pub async fn run<F>(&self, kind: Kind, make: F) -> Response
    where
        F: Future<Output = Response> + Send + 'static,
    {
        let budget = match kind {
            Kind::Render => &self.renders,
            Kind::Change => &self.changes,
        };
        let waiting = Waiting::on(&self.waiting[kind as usize]);
        let turn = budget.clone().acquire_owned().await;
        drop(waiting);
        let Ok(turn) = turn else {
            // The semaphores are never closed.
            return failed("a turn could not be had");
        };
        let made = tokio::spawn(async move {
            let _turn = turn;
            whole(make.await).await
        })
        .await;
        match made {
            Ok((parts, bytes)) => self.send(parts, bytes),
            Err(e) => {
                tracing::error!("a render failed: {e}");
                failed("a render failed")
            }
        }
    }

    /// The answer, its body held within the send budget until it has been
    /// sent or its connection is gone.
    fn send(&self, parts: axum::http::response::Parts, bytes: Bytes) -> Response {
        let size = u32::try_from(bytes.len().max(1)).unwrap_or(u32::MAX);
        let Ok(held) = self.sending.clone().try_acquire_many_owned(size) else {
            return busy();
        };
        let body = futures_util::stream::once(async move {
            let _held_until_sent = held;
            Ok::<_, std::io::Error>(bytes)
        });
        Response::from_parts(parts, Body::from_stream(body))
    }
}

/// A made answer's parts and whole body.
async fn whole(response: Response) -> (axum::http::response::Parts, Bytes) {
    let (parts, body) = response.into_parts();
    match axum::body::to_bytes(body, ANSWER_LIMIT).await {
        Ok(bytes) => (parts, bytes),
        Err(e) => {
            tracing::error!("an answer could not be made whole: {e}");
            let (parts, _) = failed("an answer was larger than any the console makes").into_parts();
            (parts, Bytes::from_static(FAILED))
        }
    }
}

const FAILED: &[u8] = b"the console failed; its log says more\n";

fn failed(why: &str) -> Response {
    tracing::error!("{why}");
    (StatusCode::INTERNAL_SERVER_ERROR, FAILED).into_response()
}

/// Too much is waiting for slow clients: a moment later there is room.
pub fn busy() -> Response {
    retry_later(
        "the console is busy sending answers to slow clients; try again in a moment\n",
        1,
    )
}

#[cfg(test)]
mod tests {
    use axum::http::header;
    use std::time::Duration;

    use super::*;

    fn answer(text: &'static str) -> Response {
        Response::new(Body::from(text))
    }

    #[tokio::test]
    async fn a_turn_ends_when_the_answer_is_made_not_when_it_is_read() {
        let turns = Turns::new(1, 1, SENDING_LIMIT);
        let unread = turns.run(Kind::Render, async { answer("a") }).await;
        // The first answer is unread; a second render still gets its turn.
        let second = tokio::time::timeout(
            Duration::from_secs(5),
            turns.run(Kind::Render, async { answer("b") }),
        )
        .await;
        assert!(second.is_ok(), "an unread answer held the only turn");
        drop(unread);
    }

    #[tokio::test]
    async fn a_render_whose_client_left_keeps_its_turn_until_it_ends() {
        let turns = Turns::new(1, 1, SENDING_LIMIT);
        let (release, wait) = tokio::sync::oneshot::channel::<()>();
        let slow = turns.clone();
        let left = tokio::spawn(async move {
            slow.run(Kind::Render, async move {
                let _ = wait.await;
                answer("slow")
            })
            .await
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        // The client goes away; its render runs on.
        left.abort();
        let next = tokio::time::timeout(
            Duration::from_millis(200),
            turns.run(Kind::Render, async { answer("next") }),
        )
        .await;
        assert!(
            next.is_err(),
            "a second render started while the first ran on"
        );
        let _ = release.send(());
        let next = tokio::time::timeout(
            Duration::from_secs(5),
            turns.run(Kind::Render, async { answer("next") }),
        )
        .await;
        assert!(next.is_ok(), "the turn came back when the render ended");
    }

    #[tokio::test]
    async fn changes_do_not_wait_for_renders() {
        let turns = Turns::new(1, 1, SENDING_LIMIT);
        let (_hold, wait) = tokio::sync::oneshot::channel::<()>();
        let busy = turns.clone();
        tokio::spawn(async move {
            busy.run(Kind::Render, async move {
                let _ = wait.await;
                answer("slow")
            })
            .await
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        let change = tokio::time::timeout(
            Duration::from_secs(5),
            turns.run(Kind::Change, async { answer("done") }),
        )
        .await;
        assert!(change.is_ok(), "a change waited behind a render");
    }

    #[tokio::test]
    async fn what_waits_to_be_sent_is_bounded_by_bytes() {
        let turns = Turns::new(4, 1, 10);
        let first = turns.run(Kind::Render, async { answer("12345678") }).await;
        assert_eq!(first.status(), StatusCode::OK);
        let second = turns.run(Kind::Render, async { answer("12345678") }).await;
        assert_eq!(second.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert!(second.headers().contains_key(header::RETRY_AFTER));
        let body = axum::body::to_bytes(first.into_body(), 100)
            .await
            .expect("sent");
        assert_eq!(&body[..], b"12345678");
        let third = turns.run(Kind::Render, async { answer("12345678") }).await;
        assert_eq!(third.status(), StatusCode::OK, "sent bytes are given back");
    }
}
