//! What a page's reads of the lists found, for the page to say. A page
//! waits for the admin API only [`PAGE_WAIT`]: past that, or when the read
//! fails, it is given the last good answer, and what was given is noted
//! here so that the page marks it stale, with its age, instead of showing
//! an error alone or a white screen for the admin API's whole timeout.
//!
//! Provided with a page request's context (a GET), and given to the reads
//! of the server functions a page's live parts show, for the time they
//! run (`patient`), in a task-local: a read anywhere else (the change
//! feed's poll, the journal's recorder, readiness, exports, a dialog's
//! preview, a task spawned from a page) finds none and waits for the
//! answer, whatever it is: what those say must be the admin API's own word.
//! Not Leptos's context: a task spawned from a request can find that
//! request's owner still current on its thread, and with it its context.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::staleness::Staleness;

/// How long a page waits for a list being read before it shows the last
/// good one. A first byte within 2 s in an outage is the promise; the
/// rest of the second is rendering.
pub const PAGE_WAIT: Duration = Duration::from_secs(1);

/// The request's notes; shared by all its reads.
#[derive(Clone, Debug)]
pub struct PageReads(Arc<Notes>);

#[derive(Debug)]
struct Notes {
    stale: Mutex<Option<Staleness>>,
    /// When the page stops waiting: [`PAGE_WAIT`] after it was asked for,
    /// for all its reads together. A read that waits on another (an
    /// explanation on the catalog it is checked against) would otherwise
    /// wait twice.
    until: Instant,
}

impl Default for PageReads {
    fn default() -> Self {
        Self(Arc::new(Notes {
            stale: Mutex::default(),
            until: Instant::now() + PAGE_WAIT,
        }))
    }
}

tokio::task_local! {
    static PAGE: PageReads;
}

impl PageReads {
    /// The notes of the page whose reads run now, if they are a page's.
    pub fn current() -> Option<Self> {
        PAGE.try_with(Clone::clone).ok()
    }

    /// The notes of the request being rendered: for the page's own
    /// components, in its render.
    pub fn of_request() -> Option<Self> {
        leptos::prelude::use_context::<Self>()
    }

    /// Runs `reads` as a page's, when the request is a page's: called at
    /// the top of a server function, where the request's context is its
    /// own.
    pub async fn patient<F: Future>(reads: F) -> F::Output {
        match Self::of_request() {
            Some(page) => PAGE.scope(page, reads).await,
            None => reads.await,
        }
    }

    /// When the page's reads stop waiting for the admin API.
    pub fn until(&self) -> tokio::time::Instant {
        self.0.until.into()
    }

    /// One list was shown stale: the page says the worst of its lists,
    /// the oldest data and the longest failure.
    pub fn note(&self, stale: Staleness) {
        let mut noted = self.0.stale.lock().unwrap_or_else(PoisonError::into_inner);
        *noted = Some(match noted.take() {
            None => stale,
            Some(before) => Staleness {
                data_age_secs: before.data_age_secs.max(stale.data_age_secs),
                failing_for_secs: before.failing_for_secs.max(stale.failing_for_secs),
                why: before.why,
            },
        });
    }

    pub fn stale(&self) -> Option<Staleness> {
        self.0
            .stale
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}
