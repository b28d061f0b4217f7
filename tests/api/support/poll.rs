//! Waiting for what a test cannot make happen at once: asked again and
//! again until it holds, within a limit, and said plainly when it does not.

use std::time::{Duration, Instant};

/// Asks `check` every 200 ms until it gives something, for at most 30 s.
pub async fn until<T>(what: &str, check: impl AsyncFnMut() -> Option<T>) -> T {
    until_within(Duration::from_secs(30), what, check).await
}

/// Likewise, for at most `limit`.
pub async fn until_within<T>(
    limit: Duration,
    what: &str,
    mut check: impl AsyncFnMut() -> Option<T>,
) -> T {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(found) = check().await {
            return found;
        }
        assert!(
            Instant::now() < deadline,
            "after {} s, still not: {what}",
            limit.as_secs()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Asks `check` until it holds, for at most 10 s: for what the test can
/// see without a request (a counter, a flag).
pub async fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    until_within(Duration::from_secs(10), what, async || {
        check().then_some(())
    })
    .await
}
