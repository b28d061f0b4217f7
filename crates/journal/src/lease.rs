//! Which console of several on one database records transitions: the one
//! holding the lease, a row renewed every period.
//!
//! A period's records are written in the transaction that renews the
//! lease, so a console that has lost it writes nothing: no transition is
//! recorded twice, however slow a console or its database. On PostgreSQL
//! the recording console also holds a lock for as long as its session
//! lives ([`Presence`]) and says so in the `recorder` table: when it dies,
//! the database lets the lock go at once, and the console that gets it
//! next takes over at its next period instead of waiting for the lease to
//! lapse. On SQLite the lock is on a file beside the journal's,
//! which the system frees when the process ends, however it ends: a
//! console killed and started again records at once. Getting the lock
//! proves only that nobody holds it now, so the lease is taken over only
//! from the console recorded as its last holder.

use std::time::Duration;

use sqlx::{AnyConnection, Executor, Row};

use super::leadership::Term;
use super::sql::Statement;
use super::store::{
    ANSWER_WITHIN, Backend, JournalStore, LastWrite, StoreError, answered, insert_events,
    mark_recorded_on, now, writing,
};
use super::trends::insert_sample;
use crate::Sample;
use crate::record::JournalEvent;

/// The session lock of the recording console: any number, the same in
/// every console ("llmgwrec" in ASCII).
const PRESENCE_LOCK: i64 = 0x6c6c_6d67_7772_6563;

/// The lock's connection is asked at most this long: a database that has
/// gone silent is a lost lock, not a stalled recorder.
const PRESENCE_TIMEOUT: Duration = Duration::from_secs(5);

/// What a period writes besides its transitions.
pub struct Period<'a> {
    pub events: &'a [JournalEvent],
    /// The clusters it recorded, up to `at`.
    pub clusters: &'a [&'a str],
    pub at: i64,
    pub samples: &'a [(String, Sample)],
    /// Each cluster's last write as these records expect to find it (this
    /// console's own last, or the one found when it started recording the
    /// cluster; `None`: none at all): checked at every period, and nothing
    /// is written unless each is still the last. Had another console
    /// recorded in between, what this one saw meanwhile may be in that
    /// record too. A lease that looks unbroken may not have been: another
    /// console can have taken it over, recorded and let it go between two
    /// of this one's periods, so it is checked all the same. A cluster of
    /// `clusters` left out (its database did not say, when recording of
    /// it started) is written only if nobody has ever recorded it; else
    /// the period is refused, and recording starts again from what the
    /// database says then.
    pub expected: &'a [(&'a str, Option<LastWrite>)],
}

impl JournalStore {
    /// Takes or renews the lease to record, for `seconds` from the
    /// database's clock (so that two consoles' clocks need not agree);
    /// the lease's term if `holder` has it.
    pub async fn hold_lease(&self, holder: &str, seconds: i64) -> Result<Option<Term>, StoreError> {
        answered(ANSWER_WITHIN, async move {
            let mut conn = self.pool().acquire().await?;
            take(&mut conn, self.backend(), holder, seconds).await
        })
        .await
    }

    /// Writes `period` if, and only if, `holder` holds the lease, renewing
    /// it in the same transaction, and nobody recorded its clusters since
    /// (see `Period::expected`); says whether it did. The row stays locked
    /// until the records are in, so no other console can take the lease
    /// over in between. `announce`: `holder` has newly got the
    /// [`Presence`] lock, and says so (once: the lock is held until it is
    /// let go, and nobody else can say so meanwhile).
    pub async fn record_period(
        &self,
        holder: &str,
        seconds: i64,
        period: &Period<'_>,
        announce: bool,
    ) -> Result<bool, StoreError> {
        self.write(writing(period.events.len()), async move |mut tx| {
            // The write first (see `write`): on SQLite the write
            // lock, and on PostgreSQL the lease's row, which then stays as
            // read next until the end.
            sqlx::query("UPDATE recorder SET expires = expires WHERE name = 'journal'")
                .execute(&mut *tx)
                .await?;
            let unknown = period
                .clusters
                .iter()
                .filter(|c| !period.expected.iter().any(|(e, _)| e == *c))
                .map(|c| (*c, None));
            let expected: Vec<(&str, Option<LastWrite>)> =
                period.expected.iter().cloned().chain(unknown).collect();
            if take(&mut tx, self.backend(), holder, seconds)
                .await?
                .is_none()
                || written_since_on(&mut tx, &expected).await?
            {
                tx.rollback().await?;
                return Ok(false);
            }
            if announce {
                sqlx::query(
                    "INSERT INTO recorder (name, holder, expires) VALUES ('presence', $1, 0)
                 ON CONFLICT (name) DO UPDATE SET holder = excluded.holder",
                )
                .bind(holder.to_string())
                .execute(&mut *tx)
                .await?;
            }
            insert_events(&mut tx, self.backend(), period.events).await?;
            mark_recorded_on(&mut tx, period.clusters, period.at, holder).await?;
            for (cluster, sample) in period.samples {
                insert_sample(&mut tx, cluster, sample).await?;
            }
            tx.commit().await?;
            Ok(true)
        })
        .await
    }

    /// Takes the lease over for `holder`, who has just got the
    /// [`Presence`] lock, if the console holding the lease is the one that
    /// last said it held that lock: its session is then over. Says whether
    /// it took it. A holder that never had the lock (it took the lease
    /// while another session still held the lock, or has not got it yet)
    /// keeps the lease. The lease's new term if it took it.
    pub async fn take_lease_over(
        &self,
        holder: &str,
        seconds: i64,
    ) -> Result<Option<Term>, StoreError> {
        self.write(ANSWER_WITHIN, async move |mut tx| {
            // In the order `record_period` takes them: no deadlock. On
            // SQLite a write first, for the write lock (see `write`).
            let locked = match self.backend() {
                Backend::Postgres => "FOR UPDATE",
                Backend::Sqlite => {
                    sqlx::query("UPDATE recorder SET expires = expires WHERE name = 'journal'")
                        .execute(&mut *tx)
                        .await?;
                    ""
                }
            };
            let sql = format!(
                "SELECT name, holder FROM recorder WHERE name IN ('journal', 'presence')
                 ORDER BY name {locked}"
            );
            let holders = sqlx::query(&sql).fetch_all(&mut *tx).await?;
            let of = |name: &str| {
                holders.iter().find_map(|r| {
                    (r.try_get::<String, _>(0).ok()? == name)
                        .then(|| r.try_get::<String, _>(1).ok())?
                })
            };
            let (leasing, present) = (of("journal"), of("presence"));
            if leasing.is_none() || leasing != present || leasing.as_deref() == Some(holder) {
                tx.rollback().await?;
                return Ok(None);
            }
            let sql = format!(
                "UPDATE recorder SET holder = $1, expires = {} + $2, term = term + 1 \
                 WHERE name = 'journal'",
                now(self.backend())
            );
            sqlx::query(&sql)
                .bind(holder.to_string())
                .bind(seconds)
                .execute(&mut *tx)
                .await?;
            let term = sqlx::query("SELECT term FROM recorder WHERE name = 'journal'")
                .fetch_one(&mut *tx)
                .await?
                .try_get(0)?;
            tx.commit().await?;
            Ok(Some(Term(term)))
        })
        .await
    }

    /// Whether another console recorded `cluster` since its last write
    /// `expected` (`None`: none at all), as [`Period::expected`] says.
    pub async fn written_since(
        &self,
        cluster: &str,
        expected: Option<LastWrite>,
    ) -> Result<bool, StoreError> {
        answered(ANSWER_WITHIN, async move {
            let mut conn = self.pool().acquire().await?;
            written_since_on(&mut conn, &[(cluster, expected)]).await
        })
        .await
    }

    /// Which console holds the lease to record, if any, and until when
    /// (seconds since 1970, by the database's clock).
    pub async fn lease(&self) -> Result<Option<(String, i64)>, StoreError> {
        answered(ANSWER_WITHIN, async move {
            let row = sqlx::query(
                "SELECT holder, expires FROM recorder WHERE name = 'journal' AND expires > 0",
            )
            .fetch_optional(self.pool())
            .await?;
            Ok(row.and_then(|r| Some((r.try_get(0).ok()?, r.try_get(1).ok()?))))
        })
        .await
    }

    /// Lets the lease go, so that another console takes over at once. The
    /// row stays, lapsed, with its term: the next holder's is higher.
    pub async fn release_lease(&self, holder: &str) -> Result<(), StoreError> {
        answered(ANSWER_WITHIN, async move {
            sqlx::query("UPDATE recorder SET expires = 0 WHERE name = 'journal' AND holder = $1")
                .bind(holder.to_string())
                .execute(self.pool())
                .await?;
            Ok(())
        })
        .await
    }
}

/// Whether the last write of any of `clusters` is not the one given with
/// it (`None`: none at all): another console recorded it since. Who wrote
/// last and at exactly what time, not whose time is later, so that the
/// consoles' clocks need not agree.
async fn written_since_on(
    conn: &mut AnyConnection,
    clusters: &[(&str, Option<LastWrite>)],
) -> Result<bool, StoreError> {
    if clusters.is_empty() {
        return Ok(false);
    }
    let mut count = Statement::new("SELECT COUNT(*) FROM recorded WHERE FALSE");
    for (cluster, last) in clusters {
        count.push(" OR (cluster = ").bind(*cluster);
        if let Some(last) = last {
            let by = last.by.clone().unwrap_or_default();
            count.push(" AND NOT (until_at = ").bind(last.until);
            count
                .push(" AND COALESCE(recorded_by, '') = ")
                .bind(by)
                .push(")");
        }
        count.push(")");
    }
    let query = count.query();
    let row = query.fetch_one(&mut *conn).await?;
    Ok(row.try_get::<i64, _>(0)? > 0)
}

/// Takes or renews the lease on `conn`; inside a transaction, the row
/// stays locked by it until the end. The lease's term if `holder` has it:
/// the same as before when it renews a lease it holds, one more when it
/// takes one that was another's, lapsed or let go.
async fn take(
    conn: &mut AnyConnection,
    backend: Backend,
    holder: &str,
    seconds: i64,
) -> Result<Option<Term>, StoreError> {
    let now = now(backend);
    let sql = format!(
        "INSERT INTO recorder (name, holder, expires, term) VALUES ('journal', $1, {now} + $2, 1)
         ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires = excluded.expires,
         term = CASE WHEN recorder.holder = excluded.holder AND recorder.expires >= {now}
                THEN recorder.term ELSE recorder.term + 1 END
         WHERE recorder.holder = excluded.holder OR recorder.expires < {now}"
    );
    sqlx::query(&sql)
        .bind(holder.to_string())
        .bind(seconds)
        .execute(&mut *conn)
        .await?;
    let row = sqlx::query("SELECT holder, term FROM recorder WHERE name = 'journal'")
        .fetch_one(&mut *conn)
        .await?;
    let term = Term(row.try_get(1)?);
    Ok((row.try_get::<String, _>(0)? == holder).then_some(term))
}

/// The recording console's session lock on PostgreSQL, on a connection of
/// its own; on SQLite a lock on a file beside the journal's
/// ([`JournalStore::lock_file`]). Held by the console that records; tried
/// each period by the others, and taken by one of them only once the
/// recording console's session is over (it died, or the database dropped
/// it), or on SQLite its process.
#[derive(Default)]
pub struct Presence {
    conn: Option<AnyConnection>,
    file: Option<std::fs::File>,
    held: bool,
    /// Whether the `recorder` table says this console holds it: written
    /// once, in the first period after it was got, not every period.
    announced: bool,
}

/// What asking for the lock found.
enum Asked {
    /// Held since it was last asked for.
    Kept,
    /// Got anew (first, or after it was lost or its file replaced).
    Got,
    Refused,
}

impl Presence {
    /// Whether this console holds the lock and has yet to say so.
    pub fn unannounced(&self) -> bool {
        self.held && !self.announced
    }

    /// The `recorder` table now says this console holds the lock.
    pub fn announced(&mut self) {
        self.announced = self.held;
    }

    /// Takes the lock if it is free, or keeps it; says whether this
    /// console holds it. A broken connection is given up (its session and
    /// lock are gone with it) and the lock asked for anew.
    pub async fn hold(&mut self, store: &JournalStore) -> bool {
        let asked = self.take_or_keep(store).await;
        self.held = !matches!(asked, Asked::Refused);
        // Said again once got again: another may have said so meanwhile.
        self.announced &= matches!(asked, Asked::Kept);
        self.held
    }

    async fn take_or_keep(&mut self, store: &JournalStore) -> Asked {
        if store.backend() != Backend::Postgres {
            return self.hold_file(store);
        }
        if self.held {
            let alive = match self.conn.as_mut() {
                Some(conn) => matches!(
                    tokio::time::timeout(PRESENCE_TIMEOUT, conn.execute("SELECT 1")).await,
                    Ok(Ok(_))
                ),
                None => false,
            };
            if alive {
                return Asked::Kept;
            }
            self.let_go();
        }
        match tokio::time::timeout(PRESENCE_TIMEOUT, self.try_lock(store)).await {
            Ok(Ok(true)) => Asked::Got,
            Ok(Ok(false)) => Asked::Refused,
            Ok(Err(e)) => {
                tracing::debug!(error = %e, "the journal's presence lock could not be asked for");
                self.conn = None;
                Asked::Refused
            }
            Err(_) => {
                self.conn = None;
                Asked::Refused
            }
        }
    }

    async fn try_lock(&mut self, store: &JournalStore) -> Result<bool, StoreError> {
        if self.conn.is_none() {
            // With the pool's settings (`JournalStore::open`): keepalives
            // end the session of a console cut off from the server, and
            // with it the lock, in about half a minute, not TCP's two hours.
            self.conn = Some(store.pool().acquire().await?.detach());
        }
        let Some(conn) = self.conn.as_mut() else {
            return Ok(false);
        };
        let row = sqlx::query("SELECT pg_try_advisory_lock($1)")
            .bind(PRESENCE_LOCK)
            .fetch_one(&mut *conn)
            .await?;
        Ok(row.try_get::<bool, _>(0)?)
    }

    /// SQLite's lock: on a file the system lets go of when the process
    /// ends, however it ends (unlike a row, which outlives it).
    fn hold_file(&mut self, store: &JournalStore) -> Asked {
        let Some(path) = store.lock_file() else {
            return Asked::Refused;
        };
        match &self.file {
            Some(file) if same_file(file, path) => return Asked::Kept,
            // Deleted or replaced (by hand, a clean-up): a lock on a file
            // nobody else can open keeps nobody out. Taken on the one
            // there now, if it is free.
            Some(_) => self.file = None,
            None => {}
        }
        // Made if missing; one that is there but not writable (left by
        // another user) is locked all the same, as locking needs no write.
        let opened = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .or_else(|_| std::fs::File::open(path));
        match opened.map(|file| file.try_lock().map(|()| file)) {
            Ok(Ok(file)) => {
                self.file = Some(file);
                Asked::Got
            }
            Ok(Err(_)) => Asked::Refused,
            Err(e) => {
                tracing::debug!(error = %e, path = %path.display(), "the journal's lock file could not be opened");
                Asked::Refused
            }
        }
    }

    /// Gives the lock up, by ending its session: for a console that no
    /// longer records, so that the one that does can take it.
    pub fn let_go(&mut self) {
        self.conn = None;
        self.file = None;
        self.held = false;
    }
}

/// Whether `file` is the file at `path` now. One that cannot be looked
/// at (a file system that failed for a moment) is taken to be: a lock
/// given up on a doubt would let another console take a live one's lease.
fn same_file(file: &std::fs::File, path: &std::path::Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(open), Ok(there)) => open.dev() == there.dev() && open.ino() == there.ino(),
        (_, Err(e)) => e.kind() != std::io::ErrorKind::NotFound,
        (Err(_), Ok(_)) => true,
    }
}
