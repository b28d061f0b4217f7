//! What a page's reads of the lists found, for the page to say. A page
//! waits for the admin API only [`PAGE_WAIT`]: past that, or when the read
//! fails, it is given the last good answer, and what was given is noted
//! here so that the page marks it stale, with its age, instead of showing
//! an error alone or a white screen for the admin API's whole timeout.
//!
//! Provided with every request's context; a read outside a request (the
//! change feed's poll, the journal's recorder, readiness, exports) finds
//! none and waits for the answer, whatever it is: what those say must be
//! the admin API's own word.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::staleness::Staleness;

/// How long a page waits for a list being read before it shows the last
/// good one. A first byte within 2 s in an outage is the promise; the
/// rest of the second is rendering.
pub const PAGE_WAIT: Duration = Duration::from_secs(1);

/// The request's notes; shared by all its reads.
#[derive(Clone, Debug, Default)]
pub struct PageReads(Arc<Mutex<Option<Staleness>>>);

impl PageReads {
    /// The notes of the request being served, if it is one.
    pub fn current() -> Option<Self> {
        leptos::prelude::use_context::<Self>()
    }

    /// One list was shown stale: the page says the worst of its lists,
    /// the oldest data and the longest failure.
    pub fn note(&self, stale: Staleness) {
        let mut noted = self.0.lock().unwrap_or_else(PoisonError::into_inner);
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
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}
