//! What the recorder has to write and has not seen written: the
//! transitions waiting for the database, a write whose answer never came
//! (it may have been committed, and must then not be written again), and
//! this console's batches of attempts, each sent again under its own
//! number until the database answers. The recorder decides when to write
//! (under its lease); this keeps what waits, and settles what is unknown.

use super::database::StoreError;
use super::store::JournalStore;
use crate::record::JournalEvent;

/// The transitions waiting for the database.
#[derive(Debug, Default)]
pub struct Outbox {
    waiting: Vec<JournalEvent>,
    /// A write whose answer did not come (its database cut off, or past
    /// its time): its `at`, and how many of `waiting`, the oldest, it
    /// held. It may have been committed all the same.
    unanswered: Option<(i64, usize)>,
}

/// What became of a write whose answer did not come.
#[derive(Debug, PartialEq, Eq)]
pub enum Settled {
    /// There was none, or it was not committed: everything waiting is
    /// still to be written.
    Nothing,
    /// It was committed (the journal says `holder` recorded until its
    /// `at`): what it held is gone from the outbox.
    Committed { at: i64, held: usize },
}

impl Outbox {
    pub fn waiting(&self) -> &[JournalEvent] {
        &self.waiting
    }

    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    pub fn add(&mut self, records: impl IntoIterator<Item = JournalEvent>) {
        self.waiting.extend(records);
    }

    /// Drops everything, the unanswered write's part too; says how much.
    pub fn drop_all(&mut self) -> usize {
        let dropped = self.waiting.len();
        self.waiting.clear();
        self.unanswered = None;
        dropped
    }

    /// Past `limit` records, all of them go (not the oldest: the rest
    /// would no longer follow from what the journal holds); says how many.
    pub fn shed_past(&mut self, limit: usize) -> Option<usize> {
        (self.waiting.len() > limit).then(|| self.drop_all())
    }

    /// Everything waiting was written.
    pub fn written(&mut self) {
        self.waiting.clear();
    }

    /// The write of everything waiting, at `at`, got no answer.
    pub fn unanswered_at(&mut self, at: i64) {
        self.unanswered = Some((at, self.waiting.len()));
    }

    /// How many of the oldest records are in a write whose answer did
    /// not come.
    pub fn held_unanswered(&self) -> usize {
        self.unanswered.map_or(0, |(_, held)| held)
    }

    /// Drops what waits of `cluster`, but for what a write whose answer
    /// did not come holds; says how many went.
    pub fn drop_cluster(&mut self, cluster: &str) -> usize {
        let (held, before) = (self.held_unanswered(), self.waiting.len());
        let mut seen = 0;
        self.waiting.retain(|e| {
            seen += 1;
            seen <= held || e.cluster != cluster
        });
        before - self.waiting.len()
    }

    /// Finds whether a write whose answer did not come was committed, by
    /// `holder`'s last write of `cluster` (any cluster the write was of).
    /// An error leaves it unsettled: nothing is written meanwhile, so that
    /// nothing is written twice.
    pub async fn settle(
        &mut self,
        store: &JournalStore,
        holder: &str,
        cluster: &str,
    ) -> Result<Settled, StoreError> {
        let Some((at, held)) = self.unanswered.take() else {
            return Ok(Settled::Nothing);
        };
        // Not `written_since`, which reads no write at all as nobody having
        // written since: here it means this write was not committed.
        match store.last_write(cluster).await {
            Ok(Some(last)) if last.is(holder, at) => {
                self.waiting.drain(..held.min(self.waiting.len()));
                Ok(Settled::Committed { at, held })
            }
            Ok(_) => Ok(Settled::Nothing),
            Err(e) => {
                self.unanswered = Some((at, held));
                Err(e)
            }
        }
    }
}

/// This console's attempts on their way to the journal, in numbered
/// batches: one the database did not take, or whose answer was lost, is
/// sent again under its number, and the database writes a number once.
#[derive(Debug, Default)]
pub struct AttemptBatches {
    /// The number of the last batch.
    last: i64,
    unanswered: Option<(i64, Vec<JournalEvent>)>,
}

/// What sending again a batch whose answer was lost found.
#[derive(Debug, PartialEq, Eq)]
pub enum Resent {
    /// There was none.
    Nothing,
    Written,
    /// It had been written: not written again. How many attempts it held.
    AlreadyWritten(usize),
}

impl AttemptBatches {
    /// Sends again the batch whose answer was lost, if any. On an error it
    /// stays, and nothing newer is to be sent before it.
    pub async fn resend(
        &mut self,
        store: &JournalStore,
        holder: &str,
    ) -> Result<Resent, StoreError> {
        let Some((batch, held)) = self.unanswered.take() else {
            return Ok(Resent::Nothing);
        };
        match store.append_attempts(holder, batch, &held).await {
            Ok(true) => Ok(Resent::Written),
            Ok(false) => Ok(Resent::AlreadyWritten(held.len())),
            Err(e) => {
                self.unanswered = Some((batch, held));
                Err(e)
            }
        }
    }

    /// Sends `attempts` as a new batch; kept to be sent again when the
    /// database does not answer.
    pub async fn send(
        &mut self,
        store: &JournalStore,
        holder: &str,
        attempts: Vec<JournalEvent>,
    ) -> Result<(), StoreError> {
        self.last += 1;
        let written = store.append_attempts(holder, self.last, &attempts).await;
        if written.is_err() {
            self.unanswered = Some((self.last, attempts));
        }
        written.map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::EventKind;

    fn record(at: i64, cluster: &str) -> JournalEvent {
        JournalEvent::new(at, cluster, EventKind::NodeState)
    }

    #[test]
    fn past_the_limit_everything_goes_and_what_an_unanswered_write_held_is_kept_apart() {
        let mut outbox = Outbox::default();
        outbox.add((0..3).map(|i| record(i, "eu")));
        assert_eq!(outbox.shed_past(3), None, "kept up to the limit");
        outbox.unanswered_at(3);
        outbox.add([record(4, "eu"), record(5, "us")]);
        assert_eq!(outbox.held_unanswered(), 3);
        // Another console recorded "eu": what waits of it goes, but for
        // what the unanswered write holds, settled on its own.
        assert_eq!(outbox.drop_cluster("eu"), 1);
        let ats: Vec<i64> = outbox.waiting().iter().map(|e| e.at).collect();
        assert_eq!(ats, [0, 1, 2, 5]);
        assert_eq!(outbox.shed_past(3), Some(4), "all of them, not the oldest");
        assert!(outbox.is_empty());
        assert_eq!(outbox.held_unanswered(), 0);
    }
}
