//! What the rest of the console reads of the journal: whether its database
//! answers (every page and `/readyz` say so), the store once it is open
//! (for the events page and the history sections), and since when each
//! node and model has been in its present state.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError, RwLock};

use std::collections::VecDeque;
use std::sync::Arc;

use crate::dated::{DatedModel, DatedNode, DatedReplica};
use llmgw_journal::leadership::Leadership;
use llmgw_journal::record::{FaultDate, JournalEvent, NodeSince, StateSince};
use llmgw_journal::since::SinceIndex;
use llmgw_journal::store::{EventFilter, JournalStore, StoreError};

/// Answers kept for pages that ask the same: open pages read again on
/// every change of the cluster, and a hundred viewers of one events page
/// must cost the database one query, not a hundred.
const SHARED_ANSWERS: usize = 64;

type Answer = (EventFilter, u32, i64, Arc<Vec<JournalEvent>>);

#[derive(Debug, Default)]
pub struct Journal {
    error: Mutex<Option<String>>,
    store: OnceLock<JournalStore>,
    since: RwLock<SinceIndex>,
    /// Recent answers, with the newest record they saw; newest last.
    answers: Mutex<VecDeque<Answer>>,
    /// Periods this console recorded, and the time they took, its reads of
    /// llmgw apart: for `/metrics`.
    periods: AtomicU64,
    recording_micros: AtomicU64,
    leadership: Leadership,
}

impl Journal {
    /// Why the database does not answer, while it does not.
    pub fn error(&self) -> Option<String> {
        self.error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// [`Journal::error`] as pages and `/readyz` show it to anyone: the
    /// files it names without where they are on the server.
    pub fn error_for_viewers(&self) -> Option<String> {
        self.error().map(|e| crate::format::without_paths(&e))
    }

    /// Whether this console acts for a cluster, and under which lease
    /// (see `llmgw_journal::leadership`).
    pub fn leadership(&self) -> &Leadership {
        &self.leadership
    }

    /// The store, once the recorder has opened it.
    pub fn store(&self) -> Option<&JournalStore> {
        self.store.get()
    }

    pub(super) fn recorded_period(&self, took: std::time::Duration) {
        self.periods.fetch_add(1, Ordering::Relaxed);
        self.recording_micros
            .fetch_add(took.as_micros() as u64, Ordering::Relaxed);
    }

    /// The periods this console recorded, and the seconds that took in
    /// all (its reads of llmgw apart).
    pub fn recording(&self) -> (u64, f64) {
        (
            self.periods.load(Ordering::Relaxed),
            self.recording_micros.load(Ordering::Relaxed) as f64 / 1e6,
        )
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

    pub(super) fn read_since_index(&self) -> std::sync::RwLockReadGuard<'_, SinceIndex> {
        self.since.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// `store.read(filter, limit)`, shared with every page that asked the
    /// same since the journal last grew (as this console last read it).
    pub async fn read_shared(
        &self,
        store: &JournalStore,
        filter: &EventFilter,
        limit: u32,
    ) -> Result<Vec<JournalEvent>, StoreError> {
        let newest = self.read_since_index().last_id;
        let lock = || self.answers.lock().unwrap_or_else(PoisonError::into_inner);
        let kept = lock()
            .iter()
            .find(|(f, l, seen, _)| f == filter && *l == limit && *seen == newest)
            .map(|(_, _, _, events)| events.clone());
        if let Some(events) = kept {
            return Ok(events.as_ref().clone());
        }
        let events = Arc::new(store.read(filter, limit).await?);
        let mut answers = lock();
        answers.retain(|(f, l, _, _)| !(f == filter && *l == limit));
        if answers.len() >= SHARED_ANSWERS {
            answers.pop_front();
        }
        answers.push_back((filter.clone(), limit, newest, events.clone()));
        Ok(events.as_ref().clone())
    }

    /// Fills in, for each of `nodes` of `cluster` (a page's rows), since
    /// when it has been in its state and each of its GPUs unhealthy.
    pub fn date_nodes(&self, cluster: &str, nodes: &mut [DatedNode]) {
        let index = self.read_since_index();
        for n in nodes {
            let state = super::transitions::node_state(&n.row);
            let dates = NodeSince {
                state: index.node(cluster, &n.id, state).map(checked_now),
                unhealthy: n
                    .unhealthy
                    .iter()
                    .map(|gpu| dated(index.gpu(cluster, &n.id, gpu)))
                    .collect(),
            };
            n.since = Some(dates);
        }
    }

    /// Fills in, for each of `models` of `cluster`, since when it has had
    /// its status.
    pub fn date_models(&self, cluster: &str, models: &mut [DatedModel]) {
        let index = self.read_since_index();
        for m in models {
            let status = crate::format::ModelStatus::of(&m.row).label();
            m.since.get_or_insert_with(Default::default).status =
                index.model(cluster, &m.name, status).map(checked_now);
        }
    }

    /// Fills in, for each of `replicas` of `cluster`, since when it has
    /// been in its state.
    pub fn date_replicas(&self, cluster: &str, replicas: &mut [DatedReplica]) {
        let index = self.read_since_index();
        let now = crate::server::signing::unix_now() as i64;
        for r in replicas {
            r.since = index
                .replica(cluster, &r.id, &r.state, r.age_sec, now)
                .map(checked_now);
        }
    }

    /// Since when the first of `node`'s GPUs now unhealthy (`gpus`, as
    /// llmgw describes them) has been; new when none is dated yet and one
    /// turned since the record began.
    pub fn unhealthy_since(&self, cluster: &str, node: &str, gpus: &[String]) -> FaultDate {
        let index = self.read_since_index();
        let dates: Vec<FaultDate> = gpus
            .iter()
            .map(|gpu| index.gpu(cluster, node, gpu))
            .collect();
        let oldest = dates
            .iter()
            .filter_map(FaultDate::since)
            .min_by_key(|s| s.at);
        match oldest {
            Some(s) => FaultDate::Since(checked_now(s.clone())),
            None if dates.contains(&FaultDate::New) => FaultDate::New,
            None => FaultDate::Unknown,
        }
    }

    /// An attempt this console just wrote to its audit: a change of a
    /// node's state it made is known at once, not a period later when the
    /// record has it, so that a page read right after it says who made it
    /// and why (and advice never offers to undo it as a state of unknown
    /// origin). The record's own copy, when it comes, says the same.
    pub fn own_attempt(&self, attempt: &JournalEvent) {
        self.since_index().apply_attempt(attempt);
    }

    /// Since when `model` has had `status` ("not placed").
    pub fn model_since(&self, cluster: &str, model: &str, status: &str) -> Option<StateSince> {
        self.read_since_index()
            .model(cluster, model, status)
            .map(checked_now)
    }
}

fn dated(date: FaultDate) -> FaultDate {
    match date {
        FaultDate::Since(s) => FaultDate::Since(checked_now(s)),
        other => other,
    }
}

fn checked_now(since: StateSince) -> StateSince {
    StateSince {
        checked: crate::server::signing::unix_now() as i64,
        ..since
    }
}
