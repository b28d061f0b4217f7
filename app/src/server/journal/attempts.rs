//! Attempts through the console, as journal records: the audit writes each
//! one to its log first (no record there, no change), then hands it here,
//! and the recorder writes it to the journal's database with the next
//! batch, or when the database answers again. Every console writes its own
//! attempts; only transitions are the lease holder's.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use tokio::sync::Notify;

use super::shared::Journal;
use crate::audit_record::Asked;
use crate::audit_record::{AuditRecord, Outcome};
use llmgw_journal::event::{Attempt, Event};
use llmgw_journal::record::JournalEvent;

/// Attempts waiting for the database, at most: a flood of refusals from a
/// hostile page, or a long outage, costs this much memory and no more
/// (besides the one batch the recorder holds to send again, as large);
/// the oldest go first, and how many went is logged.
pub const WAITING_LIMIT: usize = 10_000;

/// The attempts not yet in the journal. Takes nothing until a journal is
/// kept (`enable`), so a console without one holds no copy.
#[derive(Debug, Default)]
pub struct AttemptQueue {
    enabled: AtomicBool,
    /// Told of each attempt at once (see `Journal::own_attempt`).
    journal: OnceLock<Arc<Journal>>,
    waiting: Mutex<VecDeque<JournalEvent>>,
    dropped: AtomicU64,
    arrived: Notify,
}

impl AttemptQueue {
    pub fn enable(&self, journal: Arc<Journal>) {
        let _ = self.journal.set(journal);
        self.enabled.store(true, Ordering::Relaxed);
    }

    /// Queues `record`, seen at `at` (seconds since the Unix epoch).
    pub fn push(&self, at: i64, record: &AuditRecord) {
        if !self.enabled.load(Ordering::Relaxed) {
            return;
        }
        let event = attempt_event(at, record);
        if let Some(journal) = self.journal.get() {
            journal.own_attempt(&event);
        }
        let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        if waiting.len() >= WAITING_LIMIT {
            waiting.pop_front();
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
        waiting.push_back(event);
        drop(waiting);
        self.arrived.notify_one();
    }

    /// Everything waiting, oldest first.
    pub fn take(&self) -> Vec<JournalEvent> {
        // Taken whole, not drained: a burst's capacity is not kept.
        let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        std::mem::take(&mut *waiting).into()
    }

    /// How many were dropped since the last call.
    pub fn take_dropped(&self) -> u64 {
        self.dropped.swap(0, Ordering::Relaxed)
    }

    /// Resolves when an attempt has been queued.
    pub async fn arrived(&self) {
        self.arrived.notified().await;
    }
}

/// The journal's record of an audit record: who, which action, how it
/// ended; the node, the state asked for and the operator's reason as the
/// server function checked them ([`Asked`]), or why it did not go
/// through. An attempt refused before its function read the request
/// names no node.
pub fn attempt_event(at: i64, record: &AuditRecord) -> JournalEvent {
    let (node, state, reason) = match &record.asked {
        Some(Asked::NodeState {
            node,
            state,
            reason,
        }) => (Some(node.as_str()), Some(state.as_str()), reason.as_deref()),
        Some(Asked::CollectWeights { node }) => (node.as_deref(), None, None),
        None => (None, None, None),
    };
    let note = match record.outcome {
        Outcome::Sent | Outcome::Done => reason,
        Outcome::Refused | Outcome::Failed => record.reason.as_deref(),
    };
    let note = match record.times {
        0 | 1 => note.map(str::to_string),
        times => Some(format!("{} (×{times})", note.unwrap_or_default())),
    };
    Event::Attempt(Attempt {
        action: &record.action,
        node,
        model: None,
        state,
        outcome: record.outcome,
        actor: record.user.as_deref().unwrap_or(&record.actor),
        note: note.map(Cow::Owned),
    })
    .record(at, record.cluster.as_deref().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::audit::blank_record;

    #[test]
    fn an_attempt_says_who_did_what_to_which_node_and_how_it_ended() {
        let mut record = blank_record("set_node_state");
        record.cluster = Some("eu".into());
        record.actor = "console".into();
        record.user = Some("alice".into());
        record.asked = Some(Asked::NodeState {
            node: "gpu-07".into(),
            state: "cordoned".into(),
            reason: Some("NVLink errors, RMA 4411".into()),
        });
        // The form's fields are the audit's; the journal reads none of them.
        record
            .target
            .insert("reason".into(), "a field renamed".into());
        record.outcome = Outcome::Done;
        let event = attempt_event(7, &record);
        assert_eq!(event.cluster, "eu");
        let Some(Event::Attempt(a)) = event.event() else {
            panic!("an attempt: {event:?}")
        };
        assert_eq!(
            (a.action, a.node, a.state, a.outcome, a.actor),
            (
                "set_node_state",
                Some("gpu-07"),
                Some("cordoned"),
                Outcome::Done,
                "alice"
            )
        );
        assert_eq!(a.note.as_deref(), Some("NVLink errors, RMA 4411"));

        record.outcome = Outcome::Refused;
        record.reason = Some("read-only".into());
        record.user = None;
        let event = attempt_event(8, &record);
        assert_eq!(
            event.detail.as_deref(),
            Some("read-only"),
            "why it did not go through"
        );
        assert_eq!(event.actor.as_deref(), Some("console"));
    }

    #[test]
    fn the_queue_holds_nothing_until_enabled_and_never_more_than_its_limit() {
        let queue = AttemptQueue::default();
        let record = blank_record("collect_orphans");
        queue.push(1, &record);
        assert!(queue.take().is_empty());
        queue.enable(Arc::default());
        for at in 0..(WAITING_LIMIT as i64 + 5) {
            queue.push(at, &record);
        }
        assert_eq!(queue.take_dropped(), 5);
        let taken = queue.take();
        assert_eq!(taken.len(), WAITING_LIMIT);
        assert_eq!(taken[0].at, 5, "the oldest went first");
    }
}
