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
//!   bounded by bytes instead, in all and per sender: an answer leaves in
//!   slices, and holds its bytes in both budgets until its last slice is
//!   handed on or its connection is gone, not merely until the server
//!   first picks it up (which let 300 slow readers hold a gigabyte).
//! - A render runs to its end in a task of its own, even when its client
//!   leaves, and keeps its turn until then: leaving early cannot start more
//!   renders at once than the limit allows.
//! - Changes have turns of their own, so a crowd of readers can never make
//!   an action wait (Kubernetes' API server keeps the same two budgets).
//! - Each cluster has both budgets of its own ([`Turns::beside`]): a render
//!   holds its turn while it waits for its cluster's admin API, and the
//!   renders waiting on a cluster that hangs must not take the turns of
//!   another's pages. What waits to be sent is one budget for all.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use axum::body::{Body, Bytes};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use tokio::sync::Semaphore;

use crate::refusal::retry_later;

/// No page or answer of the console's comes near this; one that does is
/// refused rather than held.
pub const ANSWER_LIMIT: usize = 16 * 1024 * 1024;

/// Bytes of made answers waiting for their clients to read them, in all.
/// Past this, a new answer is refused with 503 until some are sent (or
/// their connections time out, see `connections`).
pub const SENDING_LIMIT: usize = 64 * 1024 * 1024;

/// The same, for one sender (an address, or a user named by a trusted
/// proxy): one crowd of slow readers cannot take every viewer's room. The
/// largest answer (the node list at 20,000 nodes, about 5 MB) fits three
/// times.
pub const SENDER_SENDING_LIMIT: usize = 16 * 1024 * 1024;

/// An answer is handed on this much at a time: the server's write buffer
/// holds a slice or a few, never a whole answer beyond the budget.
const SLICE: usize = 16 * 1024;

/// Marks the answer to a change that was sent to llmgw (see
/// [`Turns::run`]).
#[derive(Clone, Copy, Debug)]
pub struct ChangeSent;

/// Which budget a call takes its turn from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Pages and reads.
    Render = 0,
    /// Attempts at a change.
    Change = 1,
    /// Reads of the journal's history (the events page): one at a time, so
    /// that however its filters are chosen, it takes neither the renders'
    /// turns nor more than one core from the pages and the recording.
    History = 2,
}

impl Kind {
    pub const ALL: [Self; 3] = [Self::Render, Self::Change, Self::History];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Render => "render",
            Self::Change => "change",
            Self::History => "history",
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
    histories: Arc<Semaphore>,
    sending: Arc<Semaphore>,
    sending_limit: usize,
    /// Bytes waiting to be sent, by sender; one budget for all clusters.
    senders: Arc<Senders>,
    /// Calls waiting for a turn now, by kind, across every cluster's
    /// budgets: what `/metrics` says.
    waiting: Arc<[AtomicUsize; 3]>,
}

/// Who an answer is for, as the send budget counts: an address (an IPv6
/// one by its /64, what one host is given), or a user a trusted proxy
/// names; none behind a proxy that names no one, whose viewers share its
/// address and only the budget in all.
pub type Sender = Option<String>;

/// Bytes waiting to be sent to each sender.
#[derive(Debug)]
struct Senders {
    limit: usize,
    held: Mutex<HashMap<String, usize>>,
}

/// A sender's bytes, given back when dropped.
struct SenderHeld {
    senders: Arc<Senders>,
    sender: String,
    bytes: usize,
}

impl Senders {
    fn take(self: &Arc<Self>, sender: &str, bytes: usize) -> Option<SenderHeld> {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        let now = held.get(sender).copied().unwrap_or(0);
        if now + bytes > self.limit {
            return None;
        }
        held.insert(sender.to_string(), now + bytes);
        Some(SenderHeld {
            senders: self.clone(),
            sender: sender.to_string(),
            bytes,
        })
    }
}

impl Drop for SenderHeld {
    fn drop(&mut self) {
        let mut held = self
            .senders
            .held
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(now) = held.get_mut(&self.sender) {
            *now = now.saturating_sub(self.bytes);
            if *now == 0 {
                held.remove(&self.sender);
            }
        }
    }
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
            histories: Arc::new(Semaphore::new(1)),
            sending: self.sending.clone(),
            sending_limit: self.sending_limit,
            senders: self.senders.clone(),
            waiting: self.waiting.clone(),
        }
    }

    pub fn new(renders: usize, changes: usize, sending_bytes: usize) -> Self {
        Self::with_sender_limit(renders, changes, sending_bytes, SENDER_SENDING_LIMIT)
    }

    pub fn with_sender_limit(
        renders: usize,
        changes: usize,
        sending_bytes: usize,
        sender_bytes: usize,
    ) -> Self {
        let sizes = (renders.max(1), changes.max(1));
        let sending_limit = sending_bytes.clamp(1, Semaphore::MAX_PERMITS);
        Self {
            sizes,
            renders: Arc::new(Semaphore::new(sizes.0)),
            changes: Arc::new(Semaphore::new(sizes.1)),
            histories: Arc::new(Semaphore::new(1)),
            sending: Arc::new(Semaphore::new(sending_limit)),
            sending_limit,
            senders: Arc::new(Senders {
                limit: sender_bytes.max(1),
                held: Mutex::default(),
            }),
            waiting: Arc::default(),
        }
    }

    /// Bytes of made answers not yet handed on to their clients.
    pub fn sending_bytes(&self) -> usize {
        self.sending_limit
            .saturating_sub(self.sending.available_permits())
    }

    /// Calls of `kind` waiting for a turn now.
    pub fn waiting(&self, kind: Kind) -> usize {
        self.waiting[kind as usize].load(Ordering::Relaxed)
    }

    /// Waits for a turn of `kind`, then makes the answer in a task of its
    /// own that keeps the turn until the answer is whole, whether or not
    /// anyone is still waiting for it; then hands the answer over for
    /// sending, within the send budgets (in all, and `sender`'s).
    pub async fn run<F>(&self, kind: Kind, sender: Sender, make: F) -> Response
    where
        F: Future<Output = Response> + Send + 'static,
    {
        let budget = match kind {
            Kind::Render => &self.renders,
            Kind::Change => &self.changes,
            Kind::History => &self.histories,
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
            // The answer to a change that went to llmgw is never refused
            // for want of room to send: "try again" would invite a second
            // try of a done change. It is a redirect or a short receipt.
            Ok((parts, bytes)) if parts.extensions.get::<ChangeSent>().is_some() => {
                Response::from_parts(parts, Body::from(bytes))
            }
            Ok((parts, bytes)) => self.send(parts, bytes, sender),
            Err(e) => {
                tracing::error!("a render failed: {e}");
                failed("a render failed")
            }
        }
    }

    /// The answer, in slices, its bytes held within the send budgets until
    /// the last slice has been handed on or its connection is gone (the
    /// body is dropped then).
    fn send(&self, parts: axum::http::response::Parts, bytes: Bytes, sender: Sender) -> Response {
        let size = bytes.len().max(1);
        let permits = u32::try_from(size).unwrap_or(u32::MAX);
        let Ok(all) = self.sending.clone().try_acquire_many_owned(permits) else {
            return busy();
        };
        // No sender known (a proxy that names no user): the budget in all.
        let own = match sender {
            Some(sender) => match self.senders.take(&sender, size) {
                Some(own) => Some(own),
                None => return busy(),
            },
            None => None,
        };
        let held = (all, own);
        let body =
            futures_util::stream::unfold((bytes, Some(held)), |(mut rest, held)| async move {
                if rest.is_empty() {
                    // Every slice is handed on: the budgets are given back.
                    drop(held);
                    return None;
                }
                let slice = rest.split_to(rest.len().min(SLICE));
                Some((Ok::<_, std::io::Error>(slice), (rest, held)))
            })
            // The compression layer asks once more after the end.
            .fuse();
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
        let unread = turns.run(Kind::Render, None, async { answer("a") }).await;
        // The first answer is unread; a second render still gets its turn.
        let second = tokio::time::timeout(
            Duration::from_secs(5),
            turns.run(Kind::Render, None, async { answer("b") }),
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
            slow.run(Kind::Render, None, async move {
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
            turns.run(Kind::Render, None, async { answer("next") }),
        )
        .await;
        assert!(
            next.is_err(),
            "a second render started while the first ran on"
        );
        let _ = release.send(());
        let next = tokio::time::timeout(
            Duration::from_secs(5),
            turns.run(Kind::Render, None, async { answer("next") }),
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
            busy.run(Kind::Render, None, async move {
                let _ = wait.await;
                answer("slow")
            })
            .await
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        let change = tokio::time::timeout(
            Duration::from_secs(5),
            turns.run(Kind::Change, None, async { answer("done") }),
        )
        .await;
        assert!(change.is_ok(), "a change waited behind a render");
    }

    #[tokio::test]
    async fn reads_of_the_history_take_one_turn_and_none_of_the_renders() {
        let turns = Turns::new(1, 1, SENDING_LIMIT);
        let mut held = Vec::new();
        for _ in 0..2 {
            let (hold, wait) = tokio::sync::oneshot::channel::<()>();
            let busy = turns.clone();
            tokio::spawn(async move {
                busy.run(Kind::History, None, async move {
                    let _ = wait.await;
                    answer("a month of records")
                })
                .await
            });
            held.push(hold);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(turns.waiting(Kind::History), 1, "two reads at once");
        let page = tokio::time::timeout(
            Duration::from_secs(5),
            turns.run(Kind::Render, None, async { answer("a node") }),
        )
        .await;
        assert!(page.is_ok(), "a page waited behind reads of the history");
        drop(held);
    }

    #[tokio::test]
    async fn what_waits_to_be_sent_is_bounded_by_bytes() {
        let turns = Turns::new(4, 1, 10);
        let first = turns
            .run(Kind::Render, None, async { answer("12345678") })
            .await;
        assert_eq!(first.status(), StatusCode::OK);
        let second = turns
            .run(Kind::Render, None, async { answer("12345678") })
            .await;
        assert_eq!(second.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert!(second.headers().contains_key(header::RETRY_AFTER));
        let body = axum::body::to_bytes(first.into_body(), 100)
            .await
            .expect("sent");
        assert_eq!(&body[..], b"12345678");
        let third = turns
            .run(Kind::Render, None, async { answer("12345678") })
            .await;
        assert_eq!(third.status(), StatusCode::OK, "sent bytes are given back");
    }

    #[tokio::test]
    async fn an_answer_holds_its_bytes_until_its_last_slice_is_taken_or_it_is_dropped() {
        let big = "x".repeat(3 * SLICE);
        let turns = Turns::new(4, 1, 4 * SLICE);
        let answer_of = |text: String| async move { Response::new(Body::from(text)) };
        let first = turns.run(Kind::Render, None, answer_of(big.clone())).await;
        assert_eq!(turns.sending_bytes(), 3 * SLICE);
        let mut body = first.into_body().into_data_stream();
        let slice = body.next().await.expect("a slice").expect("read");
        assert_eq!(slice.len(), SLICE, "in slices");
        // A slow reader that took one slice still holds the whole answer.
        let second = turns.run(Kind::Render, None, answer_of(big.clone())).await;
        assert_eq!(second.status(), StatusCode::SERVICE_UNAVAILABLE);
        // Its connection gone, the bytes are given back.
        drop(body);
        assert_eq!(turns.sending_bytes(), 0);
        let third = turns.run(Kind::Render, None, answer_of(big.clone())).await;
        assert_eq!(third.status(), StatusCode::OK);
        let whole = axum::body::to_bytes(third.into_body(), 4 * SLICE)
            .await
            .expect("read to its end");
        assert_eq!(whole.len(), 3 * SLICE);
        assert_eq!(turns.sending_bytes(), 0, "read to its end, given back");
    }

    #[tokio::test]
    async fn a_changes_answer_is_never_refused_for_want_of_room() {
        let turns = Turns::new(4, 1, 10);
        let unread = turns
            .run(Kind::Render, None, async { answer("12345678") })
            .await;
        let sent = || async {
            let mut response = answer("12345678");
            response.extensions_mut().insert(ChangeSent);
            response
        };
        let change = turns.run(Kind::Change, None, sent()).await;
        assert_eq!(change.status(), StatusCode::OK, "the change is made");
        // One refused before it was sent may be told to try again.
        let refused = turns
            .run(Kind::Change, None, async { answer("12345678") })
            .await;
        assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
        drop(unread);
    }

    #[tokio::test]
    async fn one_sender_cannot_take_every_senders_room() {
        let turns = Turns::with_sender_limit(4, 1, 100, 10);
        let from = |who: &str| Some(who.to_string());
        let first = turns
            .run(Kind::Render, from("a"), async { answer("12345678") })
            .await;
        assert_eq!(first.status(), StatusCode::OK);
        let again = turns
            .run(Kind::Render, from("a"), async { answer("12345678") })
            .await;
        assert_eq!(again.status(), StatusCode::SERVICE_UNAVAILABLE);
        let other = turns
            .run(Kind::Render, from("b"), async { answer("12345678") })
            .await;
        assert_eq!(other.status(), StatusCode::OK, "another sender has room");
        drop(first);
        let after = turns
            .run(Kind::Render, from("a"), async { answer("12345678") })
            .await;
        assert_eq!(after.status(), StatusCode::OK);
        drop((other, after));
    }
}
