//! The journal's schema, as numbered steps run in order when a console
//! opens the database, each recorded in `journal_schema` with its number,
//! so a journal says which of them it has had. Written by hand rather than
//! with sqlx's migrator: that one reads one SQL text per step, and the
//! journal's differ between SQLite and PostgreSQL (the id column), while
//! the steps must run inside the turn the consoles take at open (see
//! `JournalStore::open`).
//!
//! Steps only add. A console older than the journal's schema keeps
//! writing what it knows, as during a rolling upgrade; the steps before
//! numbering began are written so that running them on a journal that
//! already has them changes nothing, which is how a journal from before
//! `journal_schema` is brought up to date.

use sqlx::{AnyConnection, Row};

use super::database::{Backend, StoreError, now};
use super::latest;

/// One step of the schema.
pub(super) struct Migration {
    pub version: i64,
    /// What it adds, for the table and the log.
    pub name: &'static str,
    changes: fn(Backend) -> Vec<Change>,
}

enum Change {
    Sql(String),
    /// A column added to a table made without it: asked first, since an
    /// `ALTER TABLE` locks the table against every read even when it has
    /// nothing to add.
    AddColumn {
        table: &'static str,
        column: &'static str,
        definition: &'static str,
    },
}

fn sql(statements: &[&str]) -> Vec<Change> {
    statements
        .iter()
        .map(|s| Change::Sql(s.to_string()))
        .collect()
}

/// Every step, in order. A new one goes at the end with the next number;
/// one shipped never changes.
pub(super) const MIGRATIONS: [Migration; 6] = [
    Migration {
        version: 1,
        name: "the journal of records",
        changes: |backend| {
            let id = match backend {
                Backend::Sqlite => "INTEGER PRIMARY KEY",
                Backend::Postgres => "BIGSERIAL PRIMARY KEY",
            };
            let mut changes = vec![Change::Sql(format!(
                "CREATE TABLE IF NOT EXISTS journal (
                    id {id},
                    at BIGINT NOT NULL,
                    cluster TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    node TEXT,
                    model TEXT,
                    replica TEXT,
                    from_state TEXT,
                    to_state TEXT,
                    actor TEXT,
                    detail TEXT
                )"
            ))];
            changes.extend(sql(&[
                "CREATE INDEX IF NOT EXISTS journal_cluster ON journal (cluster, id)",
                "CREATE INDEX IF NOT EXISTS journal_node ON journal (cluster, node, id)",
                "CREATE INDEX IF NOT EXISTS journal_model ON journal (cluster, model, id)",
                "CREATE INDEX IF NOT EXISTS journal_at ON journal (at)",
            ]));
            changes
        },
    },
    Migration {
        version: 2,
        name: "the recording's own tables",
        changes: |_| {
            sql(&[
                // How far each cluster's record reaches, renewed each
                // period: a console that starts recording again knows how
                // long the gap was.
                "CREATE TABLE IF NOT EXISTS recorded (
                    cluster TEXT PRIMARY KEY,
                    until_at BIGINT NOT NULL
                )",
                // The wall's trends (see `trends`): a sample of each
                // cluster's figures a minute.
                "CREATE TABLE IF NOT EXISTS samples (
                    cluster TEXT NOT NULL,
                    at BIGINT NOT NULL,
                    gpu_free BIGINT NOT NULL,
                    gpu_total BIGINT NOT NULL,
                    unhealthy_gpus BIGINT NOT NULL,
                    not_serving BIGINT NOT NULL,
                    nodes_in_trouble BIGINT NOT NULL,
                    reclaimable_bytes BIGINT NOT NULL,
                    PRIMARY KEY (cluster, at)
                )",
                // How far each console's attempts are written, by the
                // number of its last batch: a console whose write's answer
                // was lost finds whether it went in.
                "CREATE TABLE IF NOT EXISTS attempts_written (
                    console TEXT PRIMARY KEY,
                    batch BIGINT NOT NULL,
                    at BIGINT NOT NULL
                )",
                "CREATE TABLE IF NOT EXISTS recorder (
                    name TEXT PRIMARY KEY,
                    holder TEXT NOT NULL,
                    expires BIGINT NOT NULL
                )",
            ])
        },
    },
    Migration {
        version: 3,
        name: "the events page's filter by kind",
        // A rare kind is found by the index, not by reading every record
        // back from the newest.
        changes: |_| {
            sql(&["CREATE INDEX IF NOT EXISTS journal_kind ON journal (cluster, kind, id)"])
        },
    },
    Migration {
        version: 4,
        name: "which console recorded last",
        // A console from before it, writing during a rolling upgrade,
        // leaves a newer one's name beside its own time: the time alone
        // then tells the write apart.
        changes: |_| {
            vec![Change::AddColumn {
                table: "recorded",
                column: "recorded_by",
                definition: "TEXT",
            }]
        },
    },
    Migration {
        version: 5,
        name: "the newest record of each thing",
        changes: |_| sql(&latest::SCHEMA),
    },
    Migration {
        version: 6,
        name: "the lease's term",
        // Raised by the database each time the lease changes hands: what
        // a console acting by itself proves it still leads with (see
        // `leadership`).
        changes: |_| {
            vec![Change::AddColumn {
                table: "recorder",
                column: "term",
                definition: "BIGINT NOT NULL DEFAULT 0",
            }]
        },
    },
];

/// The newest step this console knows.
pub const NEWEST: i64 = MIGRATIONS[MIGRATIONS.len() - 1].version;

/// Every table the steps make. A journal whose version says it has had
/// them all and lacks one was changed by hand (a table dropped to save
/// room, a restore of some tables only).
const TABLES: [&str; 7] = [
    "journal",
    "recorded",
    "samples",
    "attempts_written",
    "recorder",
    "latest",
    "latest_upto",
];

/// The journal's version: the newest step it has had (0 for a new
/// journal, or one from before versions were kept).
pub(super) const VERSION: &str = "SELECT COALESCE(MAX(version), 0) FROM journal_schema";

/// Runs on `conn`, inside the open's transaction, every step the journal
/// has not had.
pub(super) async fn migrate(conn: &mut AnyConnection, backend: Backend) -> Result<(), StoreError> {
    sqlx::query(
        "CREATE TABLE IF NOT EXISTS journal_schema (
            version BIGINT PRIMARY KEY,
            name TEXT NOT NULL,
            applied_at BIGINT NOT NULL
        )",
    )
    .execute(&mut *conn)
    .await?;
    let from: i64 = sqlx::query(VERSION)
        .fetch_one(&mut *conn)
        .await?
        .try_get(0)?;
    for migration in MIGRATIONS.iter().filter(|m| m.version > from) {
        for change in (migration.changes)(backend) {
            apply(conn, backend, change).await?;
        }
        let record = format!(
            "INSERT INTO journal_schema (version, name, applied_at) VALUES ($1, $2, {})",
            now(backend)
        );
        sqlx::query(&record)
            .bind(migration.version)
            .bind(migration.name)
            .execute(&mut *conn)
            .await?;
        tracing::info!(
            version = migration.version,
            "the journal's schema: {}",
            migration.name
        );
    }
    mend(conn, backend).await?;
    if from > NEWEST {
        tracing::warn!(
            version = from,
            known = NEWEST,
            "the journal's schema is newer than this console's: a newer console opened it; \
             this one writes what it knows"
        );
    }
    Ok(())
}

/// Makes again what the steps made and is gone, rather than trust the
/// version and fail every write after it: every step only adds, and runs
/// again changing nothing that is there. `latest` made again is filled
/// from the journal at this open, not left empty beside a mark that says
/// it is up to date.
async fn mend(conn: &mut AnyConnection, backend: Backend) -> Result<(), StoreError> {
    let listed = match backend {
        Backend::Sqlite => "SELECT name FROM sqlite_master WHERE type = 'table'",
        Backend::Postgres => {
            "SELECT table_name::TEXT FROM information_schema.tables \
             WHERE table_schema = current_schema()"
        }
    };
    let present: Vec<String> = sqlx::query_scalar(listed).fetch_all(&mut *conn).await?;
    let missing: Vec<&str> = TABLES
        .into_iter()
        .filter(|t| !present.iter().any(|p| p == t))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    tracing::warn!(
        tables = missing.join(", "),
        "the journal's database lacks tables its schema's version says it has \
         (dropped by hand?): made again; what they held is gone"
    );
    for migration in &MIGRATIONS {
        for change in (migration.changes)(backend) {
            apply(conn, backend, change).await?;
        }
    }
    if missing.contains(&"latest") {
        sqlx::query("DELETE FROM latest_upto")
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

async fn apply(
    conn: &mut AnyConnection,
    backend: Backend,
    change: Change,
) -> Result<(), StoreError> {
    match change {
        Change::Sql(statement) => {
            sqlx::query(&statement).execute(&mut *conn).await?;
        }
        Change::AddColumn {
            table,
            column,
            definition,
        } => {
            let has = match backend {
                Backend::Postgres => {
                    "SELECT COUNT(*) FROM information_schema.columns \
                     WHERE table_schema = current_schema() AND table_name = $1 AND column_name = $2"
                }
                Backend::Sqlite => "SELECT COUNT(*) FROM pragma_table_info($1) WHERE name = $2",
            };
            let row = sqlx::query(has)
                .bind(table)
                .bind(column)
                .fetch_one(&mut *conn)
                .await?;
            if row.try_get::<i64, _>(0)? == 0 {
                let add = format!("ALTER TABLE {table} ADD COLUMN {column} {definition}");
                sqlx::query(&add).execute(&mut *conn).await?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_numbered_one_after_another() {
        for (i, m) in MIGRATIONS.iter().enumerate() {
            assert_eq!(m.version, i as i64 + 1, "{}", m.name);
        }
    }
}
