//! Where the journal is kept: an SQLite file by default, or a PostgreSQL
//! database shared by several consoles. One code path for both (sqlx's
//! `Any` driver, `$N` parameters, which both take); only the schema's
//! key column and the database's clock are said twice.

use std::time::Duration;

use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::{AnyConnection, AnyPool, Executor, Row};

pub(super) use super::database::now;
pub use super::database::{Backend, StoreError};
use super::latest;
use super::migrations;
use super::sql::{Statement, Value};
use crate::record::{EventKind, JournalEvent, storable};

/// Rows in one INSERT: its SQL and values are held at once, so a burst is
/// written in parts (SQLite would take up to 3,276 rows of ten).
const ROWS_PER_INSERT: usize = 100;

/// The advisory lock consoles take while creating the tables on PostgreSQL:
/// any number, the same in every console ("llmgwjnl" in ASCII).
const SCHEMA_LOCK: i64 = 0x6c6c_6d67_776a_6e6c;

/// The lock a write of records takes on PostgreSQL ("llmgwwri").
const WRITE_LOCK: i64 = 0x6c6c_6d67_7777_7269;

/// The columns of a record after its id, in the order every statement uses.
const COLUMNS: &str =
    "at, cluster, kind, node, model, replica, from_state, to_state, actor, detail";

/// How long an operation on the journal waits for its database. A network
/// cut between them leaves connections silent, not closed, for as long as
/// TCP keeps trying (a quarter of an hour): past this the operation fails
/// as a database that does not answer, which the pages and `/readyz` then
/// say, and a page shows the live view without what the journal adds.
pub(super) const ANSWER_WITHIN: Duration = Duration::from_secs(10);

/// What pruning a month of records, or checking the file, may take.
pub(super) const PRUNE_WITHIN: Duration = Duration::from_secs(600);

/// What a write of `records` may take: a catch-up after the database was
/// away is a large batch, which must not run out of time at every try.
pub(super) fn writing(records: usize) -> Duration {
    ANSWER_WITHIN + Duration::from_millis(records as u64)
}

/// How long PostgreSQL lets a statement run, `within` (none: no limit),
/// as its setting says it. The session's default is [`ANSWER_WITHIN`]: a
/// statement the console has given up on is ended by the server too, and
/// does not go on holding the rows, locks and connection it had.
fn statement_timeout(within: Option<Duration>) -> String {
    format!("{}ms", within.map_or(0, |d| d.as_millis()))
}

/// `op`, or an error once it has taken longer than `within`.
pub(super) async fn answered<T>(
    within: Duration,
    op: impl Future<Output = Result<T, StoreError>>,
) -> Result<T, StoreError> {
    tokio::time::timeout(within, op).await.unwrap_or_else(|_| {
        Err(StoreError(format!(
            "the journal's database did not answer within {} s",
            within.as_secs()
        )))
    })
}

/// Which records to read: each field narrows, none given is all.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventFilter {
    pub cluster: Option<String>,
    pub node: Option<String>,
    pub model: Option<String>,
    pub kinds: Vec<EventKind>,
    /// Seconds since the Unix epoch, inclusive.
    pub since: Option<i64>,
    pub until: Option<i64>,
    /// Only records older than this one: the next page.
    pub before_id: Option<i64>,
}

/// The last write of a cluster's record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LastWrite {
    /// What it recorded up to, by its console's clock.
    pub until: i64,
    /// Its console (none: one from before consoles said so).
    pub by: Option<String>,
}

impl LastWrite {
    /// Whether it is `holder`'s write up to `at`. Told by who wrote and
    /// the exact time it wrote, never by comparing two consoles' times:
    /// whether one recorded after another does not hang on their clocks.
    pub fn is(&self, holder: &str, at: i64) -> bool {
        self.until == at && self.by.as_deref() == Some(holder)
    }
}

#[derive(Clone, Debug)]
pub struct JournalStore {
    pool: AnyPool,
    /// Where the pages' reads of the history go: on SQLite a connection of
    /// their own, which may not write; on PostgreSQL the same pool.
    readers: AnyPool,
    backend: Backend,
    /// Beside an SQLite journal, the file the recording console locks.
    lock_file: Option<std::path::PathBuf>,
}

/// The journal's connections: a pool that records (`reads_only` false), or
/// one that only reads, as the pages do.
fn pool_options(backend: Backend, reads_only: bool) -> AnyPoolOptions {
    AnyPoolOptions::new()
        .max_connections(match backend {
            // One writer at a time anyway, and each connection is a
            // thread of its own whose allocations stay with it: one.
            Backend::Sqlite => 1,
            Backend::Postgres => 4,
        })
        .acquire_timeout(Duration::from_secs(5))
        .after_connect(move |conn, _| {
            Box::pin(async move {
                if backend == Backend::Postgres {
                    // A console cut off from the server must not hold
                    // what the others wait for: a transaction it left
                    // open (the lease's row locked) ends after 10 s of
                    // silence, and its session, with the presence lock,
                    // once keepalives go unanswered or its answer stays
                    // unacknowledged (about 25 s).
                    // A statement past its time is ended by the server
                    // as the console gives up on it (see `write`).
                    let statements = format!(
                        "SET statement_timeout = '{}'",
                        statement_timeout(Some(ANSWER_WITHIN))
                    );
                    for setting in [
                        "SET idle_in_transaction_session_timeout = '10s'",
                        "SET tcp_keepalives_idle = 10",
                        "SET tcp_keepalives_interval = 5",
                        "SET tcp_keepalives_count = 3",
                        &statements,
                    ] {
                        conn.execute(setting).await?;
                    }
                    // Keepalives are not sent while the server's answer is
                    // unacknowledged: a cut mid-answer would hold the
                    // session for the kernel's retransmissions (about 15
                    // minutes). Data unacknowledged for 25 s ends it too.
                    // PostgreSQL 12 has it; an older server goes without.
                    let _ = conn.execute("SET tcp_user_timeout = 25000").await;
                }
                if backend == Backend::Sqlite {
                    // Survives a kill mid-write: the log is replayed at
                    // the next open, losing at most the last transaction.
                    conn.execute("PRAGMA journal_mode = WAL").await?;
                    conn.execute("PRAGMA synchronous = NORMAL").await?;
                    conn.execute("PRAGMA busy_timeout = 5000").await?;
                    // SQLite's default page cache is 2 MiB a connection:
                    // the journal is written in batches and read by
                    // index, and the console's memory has a budget.
                    conn.execute("PRAGMA cache_size = -512").await?;
                    if reads_only {
                        conn.execute("PRAGMA query_only = ON").await?;
                    } else {
                        // The log is folded into the file every 64 pages
                        // (SQLite's default is 1,000: 4 MB) and cut back
                        // to 1 MiB after, so a disk with little room left
                        // still holds it. A write that failed closes its
                        // connection (see `write`); the next one starts by
                        // folding the log in and cutting it to nothing,
                        // which gives back the room a failed write needs.
                        conn.execute("PRAGMA wal_autocheckpoint = 64").await?;
                        conn.execute("PRAGMA journal_size_limit = 1048576").await?;
                        // Another console may hold the file's write lock
                        // past the busy timeout: then the log is folded in
                        // later, and the connection serves all the same.
                        let _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").await;
                    }
                }
                Ok(())
            })
        })
}

impl JournalStore {
    /// Opens the journal at `url` (`sqlite:///path/journal.db` or
    /// `postgres://…`), creating its tables on first use.
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Backend::Postgres
        } else {
            return Err(StoreError(format!(
                "{}: not a database this console keeps its journal in (sqlite: or postgres:)",
                redacted(url)
            )));
        };
        let pool = pool_options(backend, false)
            .connect(url)
            .await
            .map_err(|e| StoreError(format!("{}: {e}", redacted(url))))?;
        let lock_file = match backend {
            Backend::Sqlite => sqlite_path(url).map(|p| format!("{p}-recorder.lock").into()),
            Backend::Postgres => None,
        };
        let mut store = Self {
            readers: pool.clone(),
            pool,
            backend,
            lock_file,
        };
        store.create_schema().await?;
        if backend == Backend::Sqlite {
            // The pages' reads of the history on a connection of their own:
            // however their filters are chosen, recording never waits
            // behind one (the file's WAL lets one read while one writes).
            store.readers = pool_options(backend, true)
                .connect(url)
                .await
                .map_err(|e| StoreError(format!("{}: {e}", redacted(url))))?;
        }
        Ok(store)
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The file the recording console locks beside an SQLite journal
    /// (see `lease::Presence`).
    pub fn lock_file(&self) -> Option<&std::path::Path> {
        self.lock_file.as_deref()
    }

    pub(super) fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// `op`, a write, given its transaction (to commit, or to drop, which
    /// rolls it back), or an error once it has taken longer than `within`
    /// (as [`answered`]). On PostgreSQL its statements may run as long
    /// (the session's default is [`ANSWER_WITHIN`]: the writes given
    /// longer than that). When it fails on SQLite its connection is
    /// closed, not kept: on some failures (a full disk, an I/O error)
    /// SQLite ends the transaction itself, the driver's ROLLBACK after it
    /// then fails, and the driver would count the transaction open for
    /// good and refuse every transaction after on that connection.
    ///
    /// `op`'s first statement must write: on SQLite a transaction that has
    /// read cannot then start writing while another connection writes (it
    /// fails at once, busy, instead of waiting its turn).
    pub(super) async fn write<T, F>(
        &self,
        within: Duration,
        op: impl FnOnce(sqlx::Transaction<'static, sqlx::Any>) -> F,
    ) -> Result<T, StoreError>
    where
        F: Future<Output = Result<T, StoreError>>,
    {
        let result = answered(within, async {
            let tx = self.begin(Some(within)).await?;
            op(tx).await
        })
        .await;
        if result.is_err()
            && self.backend == Backend::Sqlite
            && let Ok(mut conn) = self.pool.acquire().await
        {
            conn.close_on_drop();
        }
        result
    }

    /// A transaction whose statements may run on PostgreSQL for `within`
    /// (none: no limit).
    async fn begin(
        &self,
        within: Option<Duration>,
    ) -> Result<sqlx::Transaction<'static, sqlx::Any>, StoreError> {
        let mut tx = self.pool.begin().await?;
        if self.backend == Backend::Postgres {
            let sql = format!(
                "SET LOCAL statement_timeout = '{}'",
                statement_timeout(within)
            );
            sqlx::query(&sql).execute(&mut *tx).await?;
        }
        Ok(tx)
    }

    /// Brings the schema up to date (see `migrations`), then takes into
    /// `latest` what a console without it wrote.
    async fn create_schema(&self) -> Result<(), StoreError> {
        // Taking in what an older console wrote may take long on a
        // large journal: done once, without a limit. Its first statements
        // only read when the tables are there: on SQLite it takes the write
        // lock as it begins instead (`BEGIN IMMEDIATE`; measured dearer
        // than a plain BEGIN by most of a millisecond, so not for every
        // write).
        let mut tx = match self.backend {
            Backend::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await?,
            Backend::Postgres => self.begin(None).await?,
        };
        if self.backend == Backend::Postgres {
            // PostgreSQL's `IF NOT EXISTS` is checked before the catalog is
            // locked: consoles starting together on a new database would
            // collide on its unique index. The lock is the transaction's,
            // so a console that dies here holds no one up; SQLite's write
            // lock already puts the creators in line.
            take_turn(&mut tx, SCHEMA_LOCK).await?;
            // In line with the writes before any table is touched: a
            // write takes its turn, then the journal's table; this takes
            // the tables (even `IF NOT EXISTS` does), then `latest`'s
            // catching up needs the turn.
            take_turn(&mut tx, WRITE_LOCK).await?;
        }
        migrations::migrate(&mut tx, self.backend).await?;
        latest::take_in(&mut tx).await?;
        tx.commit().await?;
        Ok(())
    }

    /// The version of the journal's schema (see `migrations`).
    pub async fn schema_version(&self) -> Result<i64, StoreError> {
        let row = sqlx::query(migrations::VERSION)
            .fetch_one(&self.readers)
            .await?;
        Ok(row.try_get(0)?)
    }

    /// Writes `events` in one transaction: all of them or none.
    pub async fn append(&self, events: &[JournalEvent]) -> Result<(), StoreError> {
        if events.is_empty() {
            return Ok(());
        }
        self.write(writing(events.len()), async move |mut tx| {
            insert_events(&mut tx, self.backend, events).await?;
            tx.commit().await?;
            Ok(())
        })
        .await
    }

    /// Writes `attempts`, `console`'s batch numbered `batch` (numbers
    /// rise), unless that batch is already in: a batch sent again after
    /// its answer was lost is written once. Says whether it wrote them.
    /// The number is written first, in the same transaction, so that a
    /// first sending still being committed holds the second back until
    /// it is, and the second then finds it.
    pub async fn append_attempts(
        &self,
        console: &str,
        batch: i64,
        attempts: &[JournalEvent],
    ) -> Result<bool, StoreError> {
        self.write(writing(attempts.len()), async move |mut tx| {
            let sql = format!(
                "INSERT INTO attempts_written (console, batch, at) VALUES ($1, $2, {})
                 ON CONFLICT (console) DO UPDATE SET batch = excluded.batch, at = excluded.at
                 WHERE attempts_written.batch < excluded.batch",
                now(self.backend)
            );
            let numbered = sqlx::query(&sql)
                .bind(console.to_string())
                .bind(batch)
                .execute(&mut *tx)
                .await?;
            if numbered.rows_affected() == 0 {
                tx.rollback().await?;
                return Ok(false);
            }
            insert_events(&mut tx, self.backend, attempts).await?;
            tx.commit().await?;
            Ok(true)
        })
        .await
    }

    /// The newest `limit` records that `filter` lets through, newest first,
    /// read on the pages' own connection.
    pub async fn read(
        &self,
        filter: &EventFilter,
        limit: u32,
    ) -> Result<Vec<JournalEvent>, StoreError> {
        answered(ANSWER_WITHIN, async move {
            let rows = read_statement(filter, limit)
                .query()
                .fetch_all(&self.readers)
                .await?;
            Ok(rows.iter().filter_map(event_of).collect())
        })
        .await
    }

    /// The records written after the one numbered `id`, oldest first, at
    /// most `limit`: what another console (or this one) added since.
    pub async fn read_after(&self, id: i64, limit: u32) -> Result<Vec<JournalEvent>, StoreError> {
        answered(ANSWER_WITHIN, async move {
            let sql =
                format!("SELECT id, {COLUMNS} FROM journal WHERE id > $1 ORDER BY id LIMIT $2");
            let rows = sqlx::query(&sql)
                .bind(id)
                .bind(i64::from(limit))
                .fetch_all(&self.pool)
                .await?;
            Ok(rows.iter().filter_map(event_of).collect())
        })
        .await
    }

    /// The newest record of each node, model and replica that says what
    /// state it is in (and of each GPU whether it is unhealthy), each cluster's
    /// newest start of recording, and each node's
    /// newest change of state made through a console, oldest first: all
    /// that the present's "since when" is worked out from, without reading
    /// the whole journal at start.
    pub async fn latest_states(&self) -> Result<Vec<JournalEvent>, StoreError> {
        answered(ANSWER_WITHIN, async move {
            let sql = format!(
                "SELECT id, {COLUMNS} FROM journal WHERE id IN ({}) ORDER BY id",
                latest::IDS
            );
            let rows = sqlx::query(&sql).fetch_all(&self.pool).await?;
            Ok(rows.iter().filter_map(event_of).collect())
        })
        .await
    }

    /// The time of the oldest record of `cluster`: what the journal can
    /// say anything about.
    pub async fn recorded_from(&self, cluster: &str) -> Result<Option<i64>, StoreError> {
        answered(ANSWER_WITHIN, async move {
            let row = sqlx::query("SELECT MIN(at) FROM journal WHERE cluster = $1")
                .bind(cluster.to_string())
                .fetch_one(&self.pool)
                .await?;
            Ok(row.try_get::<Option<i64>, _>(0).ok().flatten())
        })
        .await
    }

    /// Removes the records older than `before`, but for those the present
    /// is dated from (`latest`); says how many went.
    pub async fn prune(&self, before: i64) -> Result<u64, StoreError> {
        let sql = "DELETE FROM journal WHERE at < $1 \
                   AND NOT EXISTS (SELECT 1 FROM latest WHERE latest.id = journal.id)";
        self.write(PRUNE_WITHIN, async move |mut tx| {
            let done = sqlx::query(sql).bind(before).execute(&mut *tx).await?;
            // Consoles that have written no attempt since: long gone.
            sqlx::query("DELETE FROM attempts_written WHERE at < $1")
                .bind(before)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(done.rows_affected())
        })
        .await
    }

    /// Until when `cluster` was last recorded.
    pub async fn recorded_until(&self, cluster: &str) -> Result<Option<i64>, StoreError> {
        Ok(self.last_write(cluster).await?.map(|w| w.until))
    }

    /// The last write of `cluster`'s record: until when, and by whom.
    pub async fn last_write(&self, cluster: &str) -> Result<Option<LastWrite>, StoreError> {
        answered(ANSWER_WITHIN, async move {
            let row = sqlx::query("SELECT until_at, recorded_by FROM recorded WHERE cluster = $1")
                .bind(cluster.to_string())
                .fetch_optional(&self.pool)
                .await?;
            Ok(row.and_then(|r| {
                Some(LastWrite {
                    until: r.try_get(0).ok()?,
                    by: r.try_get::<Option<String>, _>(1).ok().flatten(),
                })
            }))
        })
        .await
    }

    /// The database's own check of its file: "ok", or what is wrong
    /// (SQLite's integrity check; PostgreSQL keeps its own).
    pub async fn integrity(&self) -> Result<String, StoreError> {
        answered(PRUNE_WITHIN, async move {
            if self.backend == Backend::Postgres {
                return Ok("ok".into());
            }
            let row = sqlx::query("PRAGMA integrity_check")
                .fetch_one(&self.pool)
                .await?;
            Ok(row.try_get::<String, _>(0)?)
        })
        .await
    }
}

/// Characters of a path that an SQLite URL's reader would take for
/// something else: a query, a fragment, an escape.
const NOT_IN_PATH: &percent_encoding::AsciiSet =
    &percent_encoding::CONTROLS.add(b'%').add(b'?').add(b'#');

/// The URL of an SQLite journal in `file`, made if missing: any directory
/// name (in UTF-8) opens the file it names, `%`, `?` and `#` included. Its
/// directory, if it exists, as the system resolves it: the URL's reader
/// would drop `..` by its text alone, and take a relative path's first
/// part for a host, where the lock file's path beside it would not.
pub fn sqlite_url(file: &std::path::Path) -> String {
    let resolved = file
        .parent()
        .and_then(|dir| std::fs::canonicalize(dir).ok())
        .zip(file.file_name())
        .map(|(dir, name)| dir.join(name));
    let path = resolved.as_deref().unwrap_or(file).display().to_string();
    let encoded = percent_encoding::utf8_percent_encode(&path, NOT_IN_PATH);
    format!("sqlite://{encoded}?mode=rwc")
}

/// The file of an SQLite URL (`sqlite:///path/journal.db?mode=rwc`), if
/// it names one, decoded as sqlx decodes it: the lock beside it must be
/// beside the file sqlx opens.
fn sqlite_path(url: &str) -> Option<String> {
    let rest = url.strip_prefix("sqlite:")?;
    let rest = rest.strip_prefix("//").unwrap_or(rest);
    let path = rest.split('?').next()?;
    if path.is_empty() || path.starts_with(":memory:") {
        return None;
    }
    let decoded = percent_encoding::percent_decode_str(path)
        .decode_utf8()
        .ok()?;
    Some(decoded.into_owned())
}

/// The kinds of findings, as SQL's list of strings.
fn seen_kinds() -> String {
    let seen: Vec<String> = EventKind::SEEN
        .iter()
        .map(|k| format!("'{}'", k.as_str()))
        .collect();
    seen.join(", ")
}

/// Waits on PostgreSQL for the advisory lock `key`, held until the end of
/// `conn`'s transaction: consoles doing the same take turns.
async fn take_turn(conn: &mut AnyConnection, key: i64) -> Result<(), StoreError> {
    sqlx::query("SELECT 1 FROM (SELECT pg_advisory_xact_lock($1)) AS locked")
        .bind(key)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Writes `events` on `conn`, a batch of rows at a time, in a transaction.
pub(super) async fn insert_events(
    conn: &mut AnyConnection,
    backend: Backend,
    events: &[JournalEvent],
) -> Result<(), StoreError> {
    if events.is_empty() {
        return Ok(());
    }
    if backend == Backend::Postgres {
        // Consoles follow the journal by id. PostgreSQL hands ids out as
        // rows are inserted, not as they are committed: a long write (a
        // start's findings) could commit after a short one with higher
        // ids, and a console that read in between would skip it for good.
        // Writes take turns, so ids are committed in order. (SQLite has
        // one writer at a time already.)
        take_turn(conn, WRITE_LOCK).await?;
    }
    for chunk in events.chunks(ROWS_PER_INSERT) {
        let mut insert = Statement::new(&format!("INSERT INTO journal ({COLUMNS}) VALUES "));
        for (i, e) in chunk.iter().enumerate() {
            let text = |t: &Option<String>| Value::from(t.as_deref().map(storable));
            insert.push(if i == 0 { "(" } else { ", (" });
            insert.bind_all([
                Value::Int(e.at),
                storable(&e.cluster).into(),
                e.kind.as_str().into(),
                text(&e.node),
                text(&e.model),
                text(&e.replica),
                text(&e.before),
                text(&e.after),
                text(&e.actor),
                text(&e.detail),
            ]);
            insert.push(")");
        }
        // Not kept prepared: a batch's size varies, and each size would
        // be a statement of its own held by every connection.
        insert.query().persistent(false).execute(&mut *conn).await?;
    }
    latest::take_in(conn).await?;
    Ok(())
}

/// Says, on `conn`, that `holder` recorded `clusters` up to `at`.
pub(super) async fn mark_recorded_on(
    conn: &mut AnyConnection,
    clusters: &[&str],
    at: i64,
    holder: &str,
) -> Result<(), StoreError> {
    for cluster in clusters {
        sqlx::query(
            "INSERT INTO recorded (cluster, until_at, recorded_by) VALUES ($1, $2, $3)
             ON CONFLICT (cluster) DO UPDATE
             SET until_at = excluded.until_at, recorded_by = excluded.recorded_by",
        )
        .bind(cluster.to_string())
        .bind(at)
        .bind(holder.to_string())
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// The statement [`JournalStore::read`] runs for `filter`, with its
/// values.
fn read_statement(filter: &EventFilter, limit: u32) -> Statement {
    let mut s = Statement::new(&format!("SELECT id, {COLUMNS} FROM journal WHERE TRUE"));
    let names = [
        ("cluster", &filter.cluster),
        ("node", &filter.node),
        ("model", &filter.model),
    ];
    for (column, value) in names {
        if let Some(value) = value {
            s.push(&format!(" AND {column} = ")).bind(storable(value));
        }
    }
    if !filter.kinds.is_empty() {
        s.push(&format!(" AND {} IN (", kind_term(filter)));
        s.bind_all(filter.kinds.iter().map(|k| k.as_str()))
            .push(")");
    }
    // The states found as recording started: thousands at once, and no
    // change. Shown when only they are asked for; a finding of a change
    // within a short gap (it has a `from_state`) is a change, shown.
    let only_findings =
        !filter.kinds.is_empty() && filter.kinds.iter().all(|k| EventKind::SEEN.contains(k));
    if !only_findings {
        s.push(&format!(
            " AND NOT (kind IN ({}) AND from_state IS NULL)",
            seen_kinds()
        ));
    }
    let bounds = [
        ("at >=", filter.since),
        ("at <=", filter.until),
        ("id <", filter.before_id),
    ];
    for (term, value) in bounds {
        if let Some(value) = value {
            s.push(&format!(" AND {term} ")).bind(value);
        }
    }
    s.push(" ORDER BY id DESC LIMIT ").bind(i64::from(limit));
    s
}

/// The kind column as a filter names it. With a node or a model, that
/// one's index finds its few hundred records; SQLite, which keeps no
/// statistics unless asked, would rather walk the kind's index through
/// hundreds of thousands (99 ms against 1 ms at a million records). An
/// expression is never looked up in an index, so `kind || ''` leaves the
/// node's or model's to it; PostgreSQL plans by its own statistics either
/// way.
fn kind_term(filter: &EventFilter) -> &'static str {
    if filter.node.is_some() || filter.model.is_some() {
        "kind || ''"
    } else {
        "kind"
    }
}

fn event_of(row: &AnyRow) -> Option<JournalEvent> {
    let text = |i: usize| row.try_get::<Option<String>, _>(i).ok().flatten();
    Some(JournalEvent {
        id: row.try_get(0).ok()?,
        at: row.try_get(1).ok()?,
        cluster: row.try_get(2).ok()?,
        kind: EventKind::parse(&row.try_get::<String, _>(3).ok()?)?,
        node: text(4),
        model: text(5),
        replica: text(6),
        before: text(7),
        after: text(8),
        actor: text(9),
        detail: text(10),
    })
}

/// `url` without its password, for messages: in its user part, and in
/// its query (`?password=…`, which PostgreSQL's URLs take too).
pub fn redacted(url: &str) -> String {
    let (url, query) = url.split_once('?').unwrap_or((url, ""));
    let query: Vec<String> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=***"),
            _ => p.to_string(),
        })
        .collect();
    let url = match url.split_once("://") {
        Some((scheme, rest)) => match rest.rsplit_once('@') {
            Some((credentials, host)) => {
                let user = credentials.split(':').next().unwrap_or_default();
                format!("{scheme}://{user}:***@{host}")
            }
            None => url.to_string(),
        },
        None => url.to_string(),
    };
    if query.is_empty() {
        url
    } else {
        format!("{url}?{}", query.join("&"))
    }
}

#[cfg(test)]
mod tests {
    use sqlx::Row;

    use super::{EventFilter, JournalStore, LastWrite, mark_recorded_on};
    use crate::Outcome;
    use crate::event::Event;
    use crate::record::{EventKind, JournalEvent};
    use crate::since::SinceIndex;

    /// An SQLite journal's URL in a directory of the test's own, removed
    /// when dropped, failed test or not.
    struct Scratch {
        dir: std::path::PathBuf,
        url: String,
    }

    impl Scratch {
        fn new(what: &str) -> Self {
            let dir = std::env::temp_dir().join(format!("llmgw-{what}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).expect("a directory");
            let url = super::sqlite_url(&dir.join("journal.db"));
            Self { dir, url }
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    /// A journal in a directory of the test's own, opened.
    async fn opened(what: &str) -> (Scratch, JournalStore) {
        let scratch = Scratch::new(what);
        let store = JournalStore::open(&scratch.url).await.expect("opened");
        (scratch, store)
    }

    /// A record of the cluster the tests write to.
    fn eu(at: i64, kind: EventKind) -> JournalEvent {
        JournalEvent::new(at, "eu", kind)
    }

    fn cordoned(at: i64, node: &str) -> JournalEvent {
        eu(at, EventKind::NodeState)
            .node(node)
            .change("ready", "cordoned")
    }

    fn not_placed(at: i64, model: &str) -> JournalEvent {
        eu(at, EventKind::ModelStatus)
            .model(model)
            .change("ready", "not placed")
    }

    /// How SQLite would answer `filter`: the indexes its plan names.
    async fn plan_of(store: &JournalStore, filter: &super::EventFilter) -> String {
        use sqlx::Row;
        let mut statement = super::read_statement(filter, 100);
        let rows = statement
            .prefix("EXPLAIN QUERY PLAN ")
            .query()
            .fetch_all(store.pool())
            .await
            .expect("planned");
        rows.iter()
            .map(|r| r.try_get::<String, _>(3).expect("its detail"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    #[tokio::test]
    async fn a_filter_by_node_or_model_walks_its_index_whatever_the_kind() {
        let (_scratch, store) = opened("plans").await;
        store
            .append(&[
                cordoned(10, "n1"),
                cordoned(20, "n2"),
                eu(30, EventKind::GpuUnhealthy).node("n1").detail("GPU 3"),
                not_placed(40, "m1"),
            ])
            .await
            .expect("written");
        let filter =
            |node: Option<&str>, model: Option<&str>, kinds: Vec<EventKind>| super::EventFilter {
                cluster: Some("eu".into()),
                node: node.map(str::to_string),
                model: model.map(str::to_string),
                kinds,
                since: Some(5),
                ..Default::default()
            };
        let by_node = filter(Some("n1"), None, vec![EventKind::NodeState]);
        let plan = plan_of(&store, &by_node).await;
        assert!(plan.contains("journal_node"), "{plan}");
        let found = store.read(&by_node, 100).await.expect("read");
        assert_eq!(found.iter().map(|e| e.at).collect::<Vec<_>>(), [10]);

        let by_model = filter(None, Some("m1"), vec![EventKind::ModelStatus]);
        let plan = plan_of(&store, &by_model).await;
        assert!(plan.contains("journal_model"), "{plan}");
        assert_eq!(store.read(&by_model, 100).await.expect("read").len(), 1);

        // With no node or model, the kind's own index is the way in.
        let by_kind = filter(None, None, vec![EventKind::GpuUnhealthy]);
        let plan = plan_of(&store, &by_kind).await;
        assert!(plan.contains("journal_kind"), "{plan}");
        assert_eq!(store.read(&by_kind, 100).await.expect("read")[0].at, 30);
    }

    #[tokio::test]
    async fn tables_dropped_by_hand_are_made_again_and_the_newest_records_found_again() {
        let (scratch, store) = opened("dropped").await;
        store
            .append(&[cordoned(10, "n1"), not_placed(20, "m1")])
            .await
            .expect("written");
        let newest = store.latest_states().await.expect("read");
        assert_eq!(newest.len(), 2, "{newest:?}");
        for drop in ["DROP TABLE latest", "DROP TABLE samples"] {
            sqlx::query(drop)
                .execute(store.pool())
                .await
                .expect("as an operator short of room might");
        }
        drop(store);
        let store = JournalStore::open(&scratch.url)
            .await
            .expect("opened again");
        assert_eq!(store.latest_states().await.expect("read"), newest);
        let samples: i64 = sqlx::query("SELECT COUNT(*) FROM samples")
            .fetch_one(store.pool())
            .await
            .expect("made again")
            .try_get(0)
            .expect("a count");
        assert_eq!(samples, 0);
        store
            .append(&[eu(30, EventKind::NodeState)
                .node("n1")
                .change("cordoned", "ready")])
            .await
            .expect("and written to as before");
    }

    #[tokio::test]
    async fn records_written_without_the_table_are_taken_in_at_the_next_open() {
        let scratch = Scratch::new("latest");
        let url = &scratch.url;
        let e = eu;
        let store = JournalStore::open(url).await.expect("opened");
        store
            .append(&[
                e(1, EventKind::RecordingStarted),
                e(2, EventKind::NodeState)
                    .node("n1")
                    .change("ready", "cordoned"),
                e(3, EventKind::NodeState)
                    .node("n1")
                    .change("cordoned", "ready"),
                e(4, EventKind::GpuUnhealthy).node("n1").detail("gpu 0"),
                e(5, EventKind::GpuUnhealthy).node("n1").detail("gpu 1"),
                e(6, EventKind::ReplicaAppeared)
                    .replica("r1")
                    .detail("ready"),
                e(7, EventKind::ReplicaGone).replica("r1"),
                e(8, EventKind::ModelStatus)
                    .model("m1")
                    .change("ready", "not placed"),
            ])
            .await
            .expect("written");
        let kept = store.latest_states().await.expect("read");
        let ats: Vec<i64> = kept.iter().map(|e| e.at).collect();
        assert_eq!(ats, [1, 3, 4, 5, 8], "{kept:?}");

        // As a journal from before the table (and before the schema's
        // versions) would be: the next open takes all of it in.
        for table in ["latest", "latest_upto", "journal_schema"] {
            sqlx::query(&format!("DROP TABLE {table}"))
                .execute(store.pool())
                .await
                .expect("dropped");
        }
        drop(store);
        let store = JournalStore::open(url).await.expect("opened again");
        assert_eq!(store.latest_states().await.expect("read"), kept);

        // Records a console without the table wrote (a rolling upgrade):
        // taken in at the next open, or the next write.
        sqlx::query(
            "INSERT INTO journal (at, cluster, kind, node, from_state, to_state) \
             VALUES (9, 'eu', 'node_state', 'n1', 'ready', 'draining')",
        )
        .execute(store.pool())
        .await
        .expect("written as an older console would");
        drop(store);
        let store = JournalStore::open(url).await.expect("opened again");
        let ats: Vec<i64> = store
            .latest_states()
            .await
            .expect("read")
            .iter()
            .map(|e| e.at)
            .collect();
        assert_eq!(ats, [1, 4, 5, 8, 9]);
        assert_eq!(store.prune(100).await.expect("pruned"), 4, "2, 3, 6 and 7");
    }

    #[tokio::test]
    async fn a_directory_named_with_url_characters_holds_the_journal_and_its_lock() {
        let scratch = Scratch::new("url-characters");
        let dir = scratch.dir.join("a%41?b#c d");
        std::fs::create_dir_all(&dir).expect("a directory");
        std::fs::create_dir_all(scratch.dir.join("other")).expect("a directory");
        // Spelt the long way round, as `--data-dir other/../a%41?b#c d`.
        let spelt = scratch.dir.join("other").join("..").join("a%41?b#c d");
        let store = JournalStore::open(&super::sqlite_url(&spelt.join("journal.db")))
            .await
            .expect("opened");
        assert!(dir.join("journal.db").exists(), "in the directory named");
        let beside = dir
            .canonicalize()
            .expect("there")
            .join("journal.db-recorder.lock");
        assert_eq!(
            store.lock_file(),
            Some(beside.as_path()),
            "the lock beside it"
        );
    }

    /// A journal written by the console as it was before the schema had
    /// versions (2026-12-07): alice cordoned gpu-h100-01 ("NVLink errors,
    /// RMA 4411") and uncordoned it; bob drained gpu-h100-02 ("PSU
    /// swap"). Made with `journal-before-versions.sh` beside it.
    const BEFORE_VERSIONS: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/journal-before-versions.db"
    );

    #[tokio::test]
    async fn a_journal_from_before_versions_opens_with_its_dates_actors_and_reasons() {
        let scratch = Scratch::new("before-versions");
        std::fs::copy(BEFORE_VERSIONS, scratch.dir.join("journal.db")).expect("copied");
        let store = JournalStore::open(&scratch.url).await.expect("opened");
        assert_eq!(
            store.schema_version().await.expect("read"),
            super::migrations::NEWEST
        );
        let everything = EventFilter::default();
        let records = store.read(&everything, 1_000).await.expect("read");
        let attempts: Vec<(&str, &str, &str, &str)> = records
            .iter()
            .rev()
            .filter_map(|e| match e.event()? {
                Event::Attempt(a) if a.outcome == Outcome::Done => Some((
                    a.node?,
                    a.state?,
                    a.actor,
                    e.detail.as_deref().unwrap_or_default(),
                )),
                _ => None,
            })
            .collect();
        assert_eq!(
            attempts,
            [
                (
                    "gpu-h100-01",
                    "cordoned",
                    "alice",
                    "NVLink errors, RMA 4411"
                ),
                ("gpu-h100-02", "draining", "bob", "PSU swap"),
                ("gpu-h100-01", "ready", "alice", ""),
            ]
        );

        // What pages say of the present is read back as before: since
        // when, by whom and why.
        let mut index = SinceIndex::default();
        index.apply(&store.latest_states().await.expect("read"));
        let drained = index
            .node("default", "gpu-h100-02", "draining")
            .expect("dated");
        assert_eq!(drained.at, 1_796_656_447);
        assert_eq!(
            (drained.by.as_deref(), drained.reason.as_deref()),
            (Some("bob"), Some("PSU swap"))
        );

        // Opened again: nothing left to do, the same records.
        drop(store);
        let store = JournalStore::open(&scratch.url)
            .await
            .expect("opened again");
        let steps: i64 = sqlx::query("SELECT COUNT(*) FROM journal_schema")
            .fetch_one(store.pool())
            .await
            .expect("read")
            .try_get(0)
            .expect("a count");
        assert_eq!(steps, super::migrations::NEWEST, "each step once");
        assert_eq!(store.read(&everything, 1_000).await.expect("read"), records);
    }

    #[tokio::test]
    async fn a_journal_from_before_consoles_said_who_recorded_is_opened_and_written() {
        let scratch = Scratch::new("recorded-by");
        let url = &scratch.url;
        let store = JournalStore::open(url).await.expect("opened");
        for statement in [
            "DROP TABLE journal_schema",
            "DROP TABLE recorded",
            "CREATE TABLE recorded (cluster TEXT PRIMARY KEY, until_at BIGINT NOT NULL)",
            "INSERT INTO recorded (cluster, until_at) VALUES ('eu', 7)",
        ] {
            sqlx::query(statement)
                .execute(store.pool())
                .await
                .expect("as an older console made it");
        }
        drop(store);
        let store = JournalStore::open(url).await.expect("opened again");
        let last = store.last_write("eu").await.expect("read").expect("kept");
        assert_eq!(last, LastWrite { until: 7, by: None });
        assert!(!last.is("a", 7), "nobody's write is this console's");
        let mut conn = store.pool().acquire().await.expect("a connection");
        mark_recorded_on(&mut conn, &["eu"], 9, "a")
            .await
            .expect("written");
        drop(conn);
        let last = store.last_write("eu").await.expect("read").expect("kept");
        assert!(last.is("a", 9) && !last.is("a", 7) && !last.is("b", 9));
        drop(store);
        JournalStore::open(url).await.expect("and opened again");
    }
}
