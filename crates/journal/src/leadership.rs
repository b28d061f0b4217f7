//! Which console acts for the clusters of one journal, and the proof of
//! it that does not depend on the consoles' clocks: the lease's **term**,
//! a number the database raises each time the lease passes to another
//! console, or is taken again after it lapsed or was let go.
//!
//! The recorder keeps the lease (see `lease`) and tells [`Leadership`]
//! each period what it holds. Whatever acts by itself (a run, a window, a
//! message) asks [`Leadership::acts_for`] whether this console acts for a
//! cluster and under which term, and writes what it does with
//! [`JournalStore::fenced`], which the database refuses once that term is
//! over: a console that paused past its lease (a long GC, a VM frozen, a
//! network cut) and comes back believing it leads writes nothing.

use std::sync::{PoisonError, RwLock};
use std::time::Duration;

use super::database::{StoreError, now};
use super::store::JournalStore;

/// The lease's term, as the database issued it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Term(pub i64);

/// What this console holds: the lease under `term`, for `holder` (its
/// name in the `recorder` table).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lead {
    pub holder: String,
    pub term: Term,
}

/// What this console knows of its leadership, shared with whatever acts.
#[derive(Debug, Default)]
pub struct Leadership {
    state: RwLock<Option<Held>>,
}

#[derive(Clone, Debug)]
struct Held {
    lead: Lead,
    /// Until when, by this console's clock counted from before it last
    /// asked (seconds since 1970): past it, this console no longer says
    /// it leads, whatever the database would answer.
    until: i64,
    clusters: Vec<String>,
}

impl Leadership {
    /// This console holds `lead` until `until` (its own clock, counted
    /// from before it asked), for `clusters`. Only the recorder, which
    /// renews the lease, says so; a wrong word here would make a console
    /// try to act, never write twice: [`JournalStore::fenced`] asks the
    /// database.
    pub fn led(&self, lead: Lead, until: i64, clusters: Vec<String>) {
        *self.write() = Some(Held {
            lead,
            until,
            clusters,
        });
    }

    /// This console does not hold the lease, or does not know that it does.
    pub fn lost(&self) {
        *self.write() = None;
    }

    /// Whether this console acts for `cluster` at `now` (seconds since
    /// 1970), and under which lease. A lead is a hint to act on: what is
    /// written under it goes through [`JournalStore::fenced`].
    pub fn acts_for(&self, cluster: &str, now: i64) -> Option<Lead> {
        let state = self.state.read().unwrap_or_else(PoisonError::into_inner);
        let held = state.as_ref()?;
        (now < held.until && held.clusters.iter().any(|c| c == cluster)).then(|| held.lead.clone())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Option<Held>> {
        self.state.write().unwrap_or_else(PoisonError::into_inner)
    }
}

impl JournalStore {
    /// Runs `op` on a transaction (which it commits, or drops to roll
    /// back) only while `lead` is still the lease's: the same holder, the
    /// same term, not lapsed by the database's clock. `None` when it is
    /// not, and nothing is written. The lease's row stays locked until
    /// `op` ends, so it cannot pass to another console in between.
    pub async fn fenced<T, F>(
        &self,
        lead: &Lead,
        within: Duration,
        op: impl FnOnce(sqlx::Transaction<'static, sqlx::Any>) -> F,
    ) -> Result<Option<T>, StoreError>
    where
        F: Future<Output = Result<T, StoreError>>,
    {
        let check = format!(
            "UPDATE recorder SET expires = expires \
             WHERE name = 'journal' AND holder = $1 AND term = $2 AND expires >= {}",
            now(self.backend())
        );
        self.write(within, async move |mut tx| {
            // A write first (see `write`), which on PostgreSQL also locks
            // the row against a takeover until the end.
            let held = sqlx::query(&check)
                .bind(lead.holder.clone())
                .bind(lead.term.0)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            if held == 0 {
                tx.rollback().await?;
                return Ok(None);
            }
            op(tx).await.map(Some)
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_console_acts_only_for_its_clusters_and_only_until_its_lease_would_lapse() {
        let leadership = Leadership::default();
        assert_eq!(leadership.acts_for("eu", 10), None, "before it holds");
        let lead = Lead {
            holder: "a".into(),
            term: Term(3),
        };
        leadership.led(lead.clone(), 40, vec!["eu".into()]);
        assert_eq!(leadership.acts_for("eu", 39), Some(lead));
        assert_eq!(leadership.acts_for("us", 39), None, "not its cluster");
        assert_eq!(leadership.acts_for("eu", 40), None, "lapsed by its clock");
        leadership.lost();
        assert_eq!(leadership.acts_for("eu", 10), None);
    }
}
