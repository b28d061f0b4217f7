//! What the rest of the console reads of the journal: whether its database
//! answers (every page and `/readyz` say so), the store once it is open
//! (for the events page and the history sections), and since when each
//! node and model has been in its present state.

use std::sync::{Mutex, OnceLock, PoisonError, RwLock};

use super::since::SinceIndex;
use super::store::{JournalStore, StoreError};
use crate::journal_record::StateSince;

#[derive(Debug, Default)]
pub struct Journal {
    error: Mutex<Option<String>>,
    store: OnceLock<JournalStore>,
    since: RwLock<SinceIndex>,
}

impl Journal {
    /// Why the database does not answer, while it does not.
    pub fn error(&self) -> Option<String> {
        self.error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The store, once the recorder has opened it.
    pub fn store(&self) -> Option<&JournalStore> {
        self.store.get()
    }

    pub(super) fn opened(&self, store: JournalStore) {
        let _ = self.store.set(store);
    }

    pub(super) fn set(&self, outcome: Result<(), &StoreError>) {
        let mut error = self.error.lock().unwrap_or_else(PoisonError::into_inner);
        match outcome {
            Ok(()) => {
                if error.take().is_some() {
                    tracing::info!("the journal's database answers again");
                }
            }
            Err(e) => {
                if error.is_none() {
                    tracing::error!(error = %e, "the journal's database fails; records wait in memory");
                }
                *error = Some(e.to_string());
            }
        }
    }

    pub(super) fn since_index(&self) -> std::sync::RwLockWriteGuard<'_, SinceIndex> {
        self.since.write().unwrap_or_else(PoisonError::into_inner)
    }

    fn read_index(&self) -> std::sync::RwLockReadGuard<'_, SinceIndex> {
        self.since.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Since when `node` has been `state` (llmgw's word), and who put it
    /// there through a console and why.
    pub fn node_since(&self, cluster: &str, node: &str, state: &str) -> Option<StateSince> {
        self.read_index()
            .node(cluster, node, state)
            .map(checked_now)
    }

    /// Since when `model` has had `status` ("not placed").
    pub fn model_since(&self, cluster: &str, model: &str, status: &str) -> Option<StateSince> {
        self.read_index()
            .model(cluster, model, status)
            .map(checked_now)
    }
}

fn checked_now(since: StateSince) -> StateSince {
    StateSince {
        checked: crate::server::signing::unix_now() as i64,
        ..since
    }
}
