//! How many pages and server function answers are made at once.
//!
//! Every render holds its own HTML, its serialised data and its reactive
//! graph until its answer is sent. A hundred viewers loading a page at the
//! same moment held a hundred of those, and the allocator kept the memory
//! after they were freed: the console's RSS at 1,000 nodes rose from 15 to
//! 45 MB, by the number of viewers rather than the size of the cluster.
//! Renders are work for the CPU, so running more of them at once than there
//! are cores finishes none sooner; the rest wait their turn.
//!
//! The limit applies to every route Leptos answers (pages and server
//! functions, those added later included) and to the not-found page. The
//! change stream, health checks and embedded files hold no render and are
//! left alone.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Renders in progress, and the most there may be.
#[derive(Clone)]
pub struct RenderLimit {
    permits: Arc<Semaphore>,
    longest_turn: Duration,
}

/// A turn is given back once its answer has been sent, or after this long:
/// a client that stops reading must not hold a turn, and with it everyone
/// else's pages, for as long as its connection lasts.
const LONGEST_TURN: Duration = Duration::from_secs(10);

impl RenderLimit {
    /// Two renders per core: one computing while another waits for a list.
    pub fn for_this_machine() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Self::new(2 * cores, LONGEST_TURN)
    }

    pub fn new(at_once: usize, longest_turn: Duration) -> Self {
        Self {
            permits: Arc::new(Semaphore::new(at_once.max(1))),
            longest_turn,
        }
    }

    /// Waits for a turn, makes the answer, and holds the turn until the
    /// answer's body has been sent: a page streams, so most of its render
    /// happens after the response itself is returned.
    pub async fn run<F>(&self, render: F) -> Response
    where
        F: Future<Output = Response> + Send + 'static,
    {
        let Ok(permit) = self.permits.clone().acquire_owned().await else {
            // The semaphore is never closed; were it, rendering unlimited
            // beats refusing every page.
            return finished(render).await;
        };
        let response = finished(render).await;
        hold_until_sent(permit, self.longest_turn, response)
    }
}

/// Runs a render to its end even when its client goes away. A page waits
/// for its data before it is sent, and a render dropped halfway left the
/// tasks it had started running against a disposed reactive owner, each of
/// which then panicked (a page left while the live document read it again).
async fn finished<F>(render: F) -> Response
where
    F: Future<Output = Response> + Send + 'static,
{
    match tokio::spawn(render).await {
        Ok(response) => response,
        Err(failed) => {
            tracing::error!("a render failed: {failed}");
            (
                axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                "the console failed; its log says more\n",
            )
                .into_response()
        }
    }
}

/// The router's layer for everything Leptos renders.
pub async fn limit_renders(State(limit): State<RenderLimit>, req: Request, next: Next) -> Response {
    limit.run(next.run(req)).await
}

fn hold_until_sent(
    permit: OwnedSemaphorePermit,
    longest: Duration,
    response: Response,
) -> Response {
    let (sent_tx, sent_rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        let _turn = permit;
        // Resolves when the body below is dropped: sent, failed or abandoned.
        let _ = tokio::time::timeout(longest, sent_rx).await;
    });
    let (parts, body) = response.into_parts();
    let body = body.into_data_stream().map(move |chunk| {
        let _held_while_sending = &sent_tx;
        chunk
    });
    Response::from_parts(parts, Body::from_stream(body))
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn streamed(chunks: Vec<&'static str>) -> Response {
        let stream = futures_util::stream::iter(chunks.into_iter().map(Ok::<_, std::io::Error>));
        Response::new(Body::from_stream(stream))
    }

    #[tokio::test]
    async fn a_turn_lasts_until_the_body_is_sent() {
        let limit = RenderLimit::new(1, LONGEST_TURN);
        let first = limit.run(streamed(vec!["a", "b"])).await;
        // The first answer's body is unsent: a second render must wait.
        let second =
            tokio::time::timeout(Duration::from_millis(200), limit.run(streamed(vec!["c"]))).await;
        assert!(
            second.is_err(),
            "a second render ran while the first was unsent"
        );

        let body = axum::body::to_bytes(first.into_body(), usize::MAX)
            .await
            .expect("the body is in memory");
        assert_eq!(&body[..], b"ab");
        let second = tokio::time::timeout(Duration::from_secs(5), limit.run(streamed(vec!["c"])))
            .await
            .expect("the turn came back once the first body was sent");
        let body = axum::body::to_bytes(second.into_body(), usize::MAX)
            .await
            .expect("the body is in memory");
        assert_eq!(&body[..], b"c");
    }

    #[tokio::test]
    async fn a_client_that_stops_reading_gives_its_turn_back() {
        let longest = Duration::from_millis(100);
        let limit = RenderLimit::new(1, longest);
        let _unread = limit.run(streamed(vec!["a"])).await;
        let next =
            tokio::time::timeout(Duration::from_secs(5), limit.run(streamed(vec!["b"]))).await;
        assert!(
            next.is_ok(),
            "an unread answer kept its turn past {longest:?}"
        );
    }
}
