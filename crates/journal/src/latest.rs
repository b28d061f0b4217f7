//! The newest record of each thing the present is dated from: each node's,
//! model's and replica's state, each unhealthy GPU, each cluster's starts,
//! each node's change through a console. A small table, `latest`, keeps
//! their ids as records are written, so that reading the present at start
//! and pruning around it cost what the cluster holds rather than what the
//! journal does (found by grouping the whole journal, they took 4 s of a
//! start over a million records, and as much again at every prune).

use sqlx::AnyConnection;

use crate::event::{NODE_STATE_ACTION, RESUMED};
use crate::record::EventKind;

/// The table, its index by id for the prune's lookups, and how far into
/// the journal it has taken records. Its key is what a record is the
/// newest of (`part` tells GPUs of one node apart).
pub(super) const SCHEMA: [&str; 3] = [
    "CREATE TABLE IF NOT EXISTS latest (
        cluster TEXT NOT NULL,
        grp TEXT NOT NULL,
        subject TEXT NOT NULL,
        part TEXT NOT NULL,
        id BIGINT NOT NULL,
        PRIMARY KEY (cluster, grp, subject, part)
    )",
    "CREATE INDEX IF NOT EXISTS latest_id ON latest (id)",
    "CREATE TABLE IF NOT EXISTS latest_upto (
        name TEXT PRIMARY KEY,
        upto BIGINT NOT NULL
    )",
];

/// The last word of a model or a replica that went dates nothing: its row
/// goes, and its record is pruned with the rest (replicas come and go by
/// the thousand; kept, their last records would outgrow the retention).
/// A node's going is kept: taken in at start, it clears its GPUs.
const DATES_NOTHING: [EventKind; 2] = [EventKind::ModelGone, EventKind::ReplicaGone];

/// One kind of thing the present is dated from: the record kinds that
/// speak of it, and the columns that name one of them (none: one a
/// cluster).
struct Group {
    name: &'static str,
    kinds: &'static [EventKind],
    subject: Option<&'static str>,
    part: Option<&'static str>,
    /// A further condition on the records, in SQL.
    only: String,
}

fn groups() -> [Group; 7] {
    use EventKind::*;
    let group = |name, kinds, subject, part| Group {
        name,
        kinds,
        subject,
        part,
        only: String::new(),
    };
    [
        group(
            "node",
            &[NodeAppeared, NodeState, NodeGone, NodeSeen],
            Some("node"),
            None,
        ),
        group(
            "model",
            &[ModelAppeared, ModelStatus, ModelGone, ModelSeen],
            Some("model"),
            None,
        ),
        group(
            "replica",
            &[ReplicaAppeared, ReplicaState, ReplicaGone, ReplicaSeen],
            Some("replica"),
            None,
        ),
        group(
            "gpu",
            &[GpuUnhealthy, GpuHealthy, GpuSeen],
            Some("node"),
            Some("detail"),
        ),
        group("start", &[RecordingStarted], None, None),
        // The newest start after a long gap: what a state is dated from
        // at the most (see `since`).
        Group {
            only: format!("AND (detail IS NULL OR detail <> '{}')", RESUMED),
            ..group("long_start", &[RecordingStarted], None, None)
        },
        Group {
            only: format!("AND to_state = 'done' AND from_state LIKE '{NODE_STATE_ACTION} %'"),
            ..group("console_change", &[Attempt], Some("node"), None)
        },
    ]
}

fn kinds_sql(kinds: &[EventKind]) -> String {
    let kinds: Vec<String> = kinds.iter().map(|k| format!("'{}'", k.as_str())).collect();
    kinds.join(", ")
}

/// Takes into the table every record it has not taken yet, on `conn`, in
/// a transaction that writes alone (SQLite's one writer; on PostgreSQL the
/// write turn, so every lower id is committed). After a write that is the
/// write's own records; at an open, a whole journal from before the table
/// (once), or what a console without it wrote since (a rolling upgrade).
pub(super) async fn take_in(conn: &mut AnyConnection) -> Result<(), sqlx::Error> {
    let upto: Option<i64> =
        sqlx::query_scalar("SELECT upto FROM latest_upto WHERE name = 'journal'")
            .fetch_optional(&mut *conn)
            .await?;
    let from = upto.map_or(0, |upto| upto + 1);
    let [upsert, forget] = &*TAKE_IN;
    sqlx::query(upsert).bind(from).execute(&mut *conn).await?;
    sqlx::query(forget).bind(from).execute(&mut *conn).await?;
    sqlx::query(
        "INSERT INTO latest_upto (name, upto) \
         SELECT 'journal', COALESCE(MAX(id), 0) FROM journal WHERE true \
         ON CONFLICT (name) DO UPDATE SET upto = excluded.upto",
    )
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// `take_in`'s two statements, from the record whose id is `$1` on: the
/// same text at every write, so each connection prepares them once (a
/// write of every period would otherwise parse and plan seven queries).
static TAKE_IN: std::sync::LazyLock<[String; 2]> = std::sync::LazyLock::new(|| {
    let newest: Vec<String> = groups()
        .iter()
        .map(|g| {
            // NULL and '' are one name: a key column cannot hold NULL, and
            // no record names a node, model or replica ''.
            let column = |c: Option<&str>| c.map(|c| format!("COALESCE({c}, '')"));
            let (subject, part) = (column(g.subject), column(g.part));
            let by: String = [&subject, &part]
                .into_iter()
                .flatten()
                .map(|c| format!(", {c}"))
                .collect();
            format!(
                "SELECT cluster, '{name}' AS grp, {subject} AS subject, {part} AS part, \
                 MAX(id) AS id FROM journal WHERE id >= $1 AND kind IN ({kinds}) {only} \
                 GROUP BY cluster{by}",
                name = g.name,
                subject = subject.as_deref().unwrap_or("''"),
                part = part.as_deref().unwrap_or("''"),
                kinds = kinds_sql(g.kinds),
                only = g.only,
            )
        })
        .collect();
    // `WHERE true`: SQLite would read the upsert's ON as a join's.
    let upsert = format!(
        "INSERT INTO latest (cluster, grp, subject, part, id) \
         SELECT cluster, grp, subject, part, id FROM ({}) AS fresh WHERE true \
         ON CONFLICT (cluster, grp, subject, part) DO UPDATE SET id = excluded.id \
         WHERE excluded.id > latest.id",
        newest.join(" UNION ALL ")
    );
    let forget = format!(
        "DELETE FROM latest WHERE id >= $1 AND id IN \
         (SELECT id FROM journal WHERE id >= $1 AND kind IN ({}))",
        kinds_sql(&DATES_NOTHING)
    );
    [upsert, forget]
});

/// The ids the present is dated from, as SQL: what `latest_states` reads
/// and the prune keeps.
pub(super) const IDS: &str = "SELECT id FROM latest";
