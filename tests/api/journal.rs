//! The journal's store, on a real SQLite file and a real PostgreSQL server:
//! what is written is read back by every filter, paged, pruned; the lease
//! to record is held by one console at a time, passes on when it lapses or
//! its holder's session ends, and a console that lost it writes nothing.

use std::time::Duration;

use llmgw_journal::leadership::{Lead, Term};
use llmgw_journal::lease::{Period, Presence};
use llmgw_journal::record::{EventKind, JournalEvent};
use llmgw_journal::store::LastWrite;
use llmgw_journal::{EventFilter, JournalStore, SCHEMA_VERSION};

use crate::support::databases::{Postgres, TempDir, sqlite_url};
use crate::support::poll::until_within;

/// Within this a lock whose session let it go (or ended) is free to another.
const LOCK_FREED: Duration = Duration::from_secs(5);

fn events(cluster: &str, count: i64) -> Vec<JournalEvent> {
    (0..count)
        .map(|i| {
            let kind = if i % 2 == 0 {
                EventKind::NodeState
            } else {
                EventKind::ModelStatus
            };
            let e = JournalEvent::new(1_000 + i, cluster, kind).change("ready", "cordoned");
            if i % 2 == 0 {
                e.node(&format!("node-{}", i % 10))
            } else {
                e.model(&format!("model-{}", i % 3))
            }
        })
        .collect()
}

async fn reads_back_by_every_filter(store: &JournalStore) {
    store.append(&events("eu", 1_200)).await.expect("written");
    store.append(&events("us", 10)).await.expect("written");
    store.append(&[]).await.expect("nothing to write is fine");

    let all = store
        .read(&EventFilter::default(), 5_000)
        .await
        .expect("read");
    assert_eq!(
        all.len(),
        1_210,
        "every row of a write of more than one INSERT"
    );
    assert!(all.windows(2).all(|w| w[0].id > w[1].id), "newest first");

    let eu = EventFilter {
        cluster: Some("eu".into()),
        ..EventFilter::default()
    };
    let node = EventFilter {
        node: Some("node-4".into()),
        ..eu.clone()
    };
    let got = store.read(&node, 1_000).await.expect("read");
    assert_eq!(got.len(), 120, "node-4 is every tenth record");
    assert!(
        got.iter()
            .all(|e| e.node.as_deref() == Some("node-4") && e.cluster == "eu")
    );
    assert_eq!(got[0].before.as_deref(), Some("ready"));
    assert_eq!(got[0].after.as_deref(), Some("cordoned"));
    assert_eq!(got[0].kind, EventKind::NodeState);

    let model = EventFilter {
        model: Some("model-1".into()),
        kinds: vec![EventKind::ModelStatus],
        since: Some(1_100),
        until: Some(1_199),
        ..eu.clone()
    };
    let got = store.read(&model, 1_000).await.expect("read");
    assert!(!got.is_empty());
    assert!(
        got.iter()
            .all(|e| (1_100..=1_199).contains(&e.at) && e.model.as_deref() == Some("model-1"))
    );

    // Pages follow one another without a gap or a repeat.
    let first = store.read(&eu, 500).await.expect("read");
    let next = EventFilter {
        before_id: first.last().map(|e| e.id),
        ..eu.clone()
    };
    let second = store.read(&next, 500).await.expect("read");
    assert_eq!(first.len() + second.len(), 1_000);
    assert_eq!(second[0].id, first[499].id - 1);

    // A hostile value is a value.
    let hostile = EventFilter {
        node: Some("x' OR '1'='1".into()),
        ..EventFilter::default()
    };
    assert!(store.read(&hostile, 10).await.expect("read").is_empty());
    // A name with a NUL (PostgreSQL's text holds none) is written as the
    // journal keeps it, and found by the name llmgw gave.
    store
        .append(&[JournalEvent::new(1_500, "nul", EventKind::NodeState)
            .node("gpu\0-7")
            .change("ready", "cordoned")])
        .await
        .expect("a NUL fails no batch");
    let nul = EventFilter {
        node: Some("gpu\0-7".into()),
        ..EventFilter::default()
    };
    let got = store
        .read(&nul, 10)
        .await
        .expect("a NUL in a filter is a value");
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].node.as_deref(), Some("gpu\u{FFFD}-7"));

    assert_eq!(store.recorded_from("eu").await.expect("read"), Some(1_000));
    assert_eq!(store.recorded_from("nowhere").await.expect("read"), None);
    // A replica's state is kept as a node's is; a replica that went dates
    // nothing, and its last records go with the rest.
    let us = |at, kind| JournalEvent::new(at, "us", kind);
    store
        .append(&[
            us(1_001, EventKind::ReplicaAppeared)
                .replica("r1")
                .detail("ready"),
            us(1_002, EventKind::ReplicaGone).replica("r1"),
            us(1_003, EventKind::ReplicaState)
                .replica("r2")
                .change("ready", "starting"),
            us(1_004, EventKind::NodeAppeared)
                .node("n-gone")
                .detail("ready"),
            us(1_005, EventKind::NodeGone).node("n-gone"),
        ])
        .await
        .expect("written");
    let pruned = store.prune(1_100).await.expect("pruned");
    assert_eq!(
        pruned,
        100 + 2 + 3,
        "the records before 1100, but for us's newest state of each node (5, and the one \
         gone), model (3) and replica (1)"
    );
    let latest = store.latest_states().await.expect("read");
    let of = |name: &str| {
        latest
            .iter()
            .filter(|e| e.replica.as_deref() == Some(name) || e.node.as_deref() == Some(name))
            .count()
    };
    assert_eq!((of("r2"), of("r1"), of("n-gone")), (1, 0, 1), "{latest:?}");
    assert!(
        latest
            .iter()
            .any(|e| e.kind == EventKind::NodeGone && e.node.as_deref() == Some("n-gone")),
        "a node's going is read at start: it clears what was kept of its GPUs"
    );
    assert_eq!(store.recorded_from("eu").await.expect("read"), Some(1_100));
    assert_eq!(store.recorded_from("us").await.expect("read"), Some(1_000));

    // The states found as recording starts are left out unless asked for;
    // one found changed within a short gap is a change, shown.
    let found = |node: &str, before: Option<&str>| JournalEvent {
        before: before.map(str::to_string),
        after: Some("cordoned".into()),
        ..JournalEvent::new(2_000, "found", EventKind::NodeSeen).node(node)
    };
    store
        .append(&[found("n1", None), found("n2", Some("ready"))])
        .await
        .expect("written");
    let of_found = |kinds: Vec<EventKind>| EventFilter {
        cluster: Some("found".into()),
        kinds,
        ..EventFilter::default()
    };
    let shown = store.read(&of_found(vec![]), 10).await.expect("read");
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert_eq!(shown[0].change_text(), "ready → cordoned");
    let changes = vec![EventKind::NodeState, EventKind::NodeSeen];
    assert_eq!(
        store
            .read(&of_found(changes), 10)
            .await
            .expect("read")
            .len(),
        1
    );
    let asked = store
        .read(&of_found(vec![EventKind::NodeSeen]), 10)
        .await
        .expect("read");
    assert_eq!(asked.len(), 2, "asked for by kind");
}

/// A period of `events` of `clusters` up to `at`, with no samples, whose
/// records expect each cluster's last write as `expected` says.
fn period<'a>(
    events: &'a [JournalEvent],
    clusters: &'a [&'a str],
    at: i64,
    expected: &'a [(&'a str, Option<LastWrite>)],
) -> Period<'a> {
    Period {
        events,
        clusters,
        at,
        samples: &[],
        expected,
    }
}

/// `holder`'s write up to `at`.
fn by(holder: &str, at: i64) -> Option<LastWrite> {
    Some(LastWrite {
        until: at,
        by: Some(holder.into()),
    })
}

async fn one_holder_at_a_time(first: &JournalStore, second: &JournalStore) {
    assert!(first.hold_lease("a", 2).await.expect("lease").is_some());
    // a records two clusters up to 1000, by its clock.
    assert!(
        first
            .record_period("a", 2, &period(&[], &["late", "quiet"], 1_000, &[]), false)
            .await
            .expect("written")
    );
    assert!(
        second.hold_lease("b", 2).await.expect("lease").is_none(),
        "held by a"
    );
    assert!(
        first.hold_lease("a", 2).await.expect("lease").is_some(),
        "renewed"
    );
    // a stops renewing: b takes over once the lease lapses.
    tokio::time::sleep(std::time::Duration::from_millis(3_100)).await;
    assert!(
        second.hold_lease("b", 2).await.expect("lease").is_some(),
        "lapsed, taken over"
    );
    // a, slow, still believes it records: its period is not written.
    let late = events("late", 3);
    let a_late = [("late", by("a", 1_000))];
    assert!(
        !first
            .record_period("a", 2, &period(&late, &["late"], 2_000, &a_late), false)
            .await
            .expect("asked"),
        "a has lost it"
    );
    let late_filter = EventFilter {
        cluster: Some("late".into()),
        ..EventFilter::default()
    };
    assert!(first.read(&late_filter, 10).await.expect("read").is_empty());
    assert_eq!(
        first.recorded_until("late").await.expect("read"),
        Some(1_000)
    );
    // b records "late", from a's last write as its start found it. Its
    // clock is behind a's: by it, this is the very second a last wrote.
    assert!(
        second
            .record_period("b", 2, &period(&late, &["late"], 1_000, &a_late), false)
            .await
            .expect("written")
    );
    assert_eq!(first.read(&late_filter, 10).await.expect("read").len(), 3);
    assert!(
        first.hold_lease("a", 2).await.expect("lease").is_none(),
        "still b's"
    );
    second.release_lease("b").await.expect("released");
    // a, back after its lease lapsed, b recorded and let it go: a period
    // of what a saw meanwhile may hold b's changes too, and is not
    // written, though no time b wrote is later than a's.
    assert!(
        !first
            .record_period("a", 2, &period(&late, &["late"], 2_000, &a_late), false)
            .await
            .expect("asked"),
        "b recorded in between"
    );
    // After a lapse, records of a cluster whose last write they do not
    // know are written only if nobody has recorded it.
    assert!(
        !first
            .record_period("a", 2, &period(&late, &["late"], 2_000, &[]), false)
            .await
            .expect("asked"),
        "recorded by someone, who may have been b"
    );
    assert_eq!(first.read(&late_filter, 10).await.expect("read").len(), 3);
    // Of "quiet", a's write is still the last: what it saw meanwhile is
    // written, and so is "fresh", which nobody has recorded.
    let a_quiet = [("quiet", by("a", 1_000))];
    assert!(
        first
            .record_period(
                "a",
                2,
                &period(&[], &["quiet", "fresh"], 2_500, &a_quiet),
                false
            )
            .await
            .expect("written"),
        "nobody recorded in between"
    );
    for cluster in ["quiet", "fresh"] {
        assert_eq!(
            first.last_write(cluster).await.expect("read"),
            by("a", 2_500)
        );
    }
    first.release_lease("a").await.expect("released");
    assert!(
        first.hold_lease("a", 2).await.expect("lease").is_some(),
        "given back at once"
    );
    first.release_lease("a").await.expect("released");
    // Between two of a's periods b takes the lease over, records "quiet"
    // and lets it go (an upgrade): a's next renewal finds the lease free
    // and takes it, so it looks unbroken. What a saw since its last write
    // may be in b's record too: not written.
    let mine = [("quiet", by("a", 2_500))];
    assert!(second.hold_lease("b", 2).await.expect("lease").is_some());
    assert!(
        second
            .record_period("b", 2, &period(&[], &["quiet"], 2_600, &mine), false)
            .await
            .expect("written")
    );
    second.release_lease("b").await.expect("released");
    assert!(
        first.hold_lease("a", 2).await.expect("lease").is_some(),
        "free again"
    );
    let seen = events("quiet", 2);
    let never = [("quiet", None)];
    for (expected, why) in [
        (
            &mine[..],
            "b recorded in between, though a's lease looks unbroken",
        ),
        // Records that start a cluster afresh expect the record as the
        // start found it: here, none at all.
        (&never[..], "recorded since the start looked"),
        // Nor records whose start could not read the database: someone
        // has recorded the cluster, and it may have been b, in between.
        (
            &[][..],
            "recorded by someone, though a's lease looks unbroken",
        ),
    ] {
        let records = period(&seen, &["quiet"], 2_700, expected);
        let written = first.record_period("a", 2, &records, false).await;
        assert!(!written.expect("asked"), "{why}");
    }
    let quiet_filter = EventFilter {
        cluster: Some("quiet".into()),
        ..EventFilter::default()
    };
    assert!(
        first
            .read(&quiet_filter, 10)
            .await
            .expect("read")
            .is_empty()
    );
    first.release_lease("a").await.expect("released");
    a_period_and_a_takeover_never_both_happen(first, second).await;
}

/// The lease's term: the same while one console renews, higher whenever
/// the lease passes on (lapsed, let go, taken over), whatever the
/// consoles' clocks. A write fenced by a term goes through while that
/// term holds, and never after: a console that paused past its lease and
/// comes back believing it leads writes nothing.
async fn terms_rise_with_each_holder_and_fence_the_last(
    first: &JournalStore,
    second: &JournalStore,
) {
    let hold = async |store: &JournalStore, holder: &str, seconds| {
        store.hold_lease(holder, seconds).await.expect("asked")
    };
    // What a fenced write does: one sample row, so its effect is seen.
    let fenced = async |store: &JournalStore, lead: &Lead, at: i64| {
        store
            .fenced(lead, Duration::from_secs(10), async move |mut tx| {
                sqlx::query("INSERT INTO samples VALUES ('fenced', $1, 0, 0, 0, 0, 0, 0)")
                    .bind(at)
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                Ok(at)
            })
            .await
            .expect("asked")
    };
    let lead = |holder: &str, term: Term| Lead {
        holder: holder.into(),
        term,
    };
    let t1 = hold(first, "a", 2).await.expect("a holds");
    assert_eq!(
        hold(first, "a", 2).await,
        Some(t1),
        "renewed: the same term"
    );
    assert_eq!(fenced(first, &lead("a", t1), 1).await, Some(1));
    // a pauses past its lease; b takes it.
    tokio::time::sleep(Duration::from_millis(3_100)).await;
    assert_eq!(
        fenced(first, &lead("a", t1), 2).await,
        None,
        "lapsed by the database's clock"
    );
    let t2 = hold(second, "b", 60).await.expect("b takes it");
    assert!(t2 > t1, "{t2:?} after {t1:?}");
    assert_eq!(
        fenced(first, &lead("a", t1), 3).await,
        None,
        "a's term is over"
    );
    assert_eq!(fenced(second, &lead("b", t2), 4).await, Some(4));
    // Let go and taken again by the same console: a new term all the same.
    second.release_lease("b").await.expect("released");
    assert_eq!(fenced(second, &lead("b", t2), 5).await, None, "let go");
    let t3 = hold(second, "b", 60).await.expect("b again");
    assert!(t3 > t2);
    // Taken over from a holder whose session ended: a new term.
    let mut a = Presence::default();
    let mut b = Presence::default();
    assert!(b.hold(second).await);
    assert!(
        second
            .record_period("b", 60, &period(&[], &[], 9_000, &[]), true)
            .await
            .expect("announced")
    );
    b.let_go();
    let t4 = until_within(LOCK_FREED, "a takes over", async || {
        if !a.hold(first).await {
            return None;
        }
        first.take_lease_over("a", 60).await.expect("asked")
    })
    .await;
    assert!(t4 > t3);
    assert_eq!(fenced(second, &lead("b", t3), 6).await, None);
    let written = first.samples_after("fenced", 0).await.expect("read");
    let ats: Vec<i64> = written.iter().map(|s| s.at).collect();
    assert_eq!(ats, [1, 4], "only the writes under a term that held");
    a.let_go();
    first.release_lease("a").await.expect("released");
}

/// A period written while another console takes the lapsed lease: either
/// the period takes the lease back and is written whole, or the other
/// console has it and the period writes nothing. Never both.
async fn a_period_and_a_takeover_never_both_happen(first: &JournalStore, second: &JournalStore) {
    let burst: Vec<JournalEvent> = events("burst", 3_000);
    let filter = EventFilter {
        cluster: Some("burst".into()),
        ..EventFilter::default()
    };
    let mut kept = 0;
    for round in 0..2 {
        let (a, b) = (format!("a{round}"), format!("b{round}"));
        // Records that follow the last write, whoever's it is.
        let last = [("burst", first.last_write("burst").await.expect("read"))];
        let period = period(&burst, &["burst"], 3_000, &last);
        assert!(first.hold_lease(&a, 1).await.expect("lease").is_some());
        // Lapsed: both may take it.
        tokio::time::sleep(std::time::Duration::from_millis(2_100)).await;
        let (wrote, took) = tokio::join!(
            first.record_period(&a, 60, &period, false),
            second.hold_lease(&b, 60)
        );
        let (wrote, took) = (wrote.expect("asked"), took.expect("asked").is_some());
        assert!(
            wrote != took,
            "round {round}: wrote {wrote}, taken over {took}"
        );
        if wrote {
            kept += burst.len();
        }
        let found = first.read(&filter, 100_000).await.expect("read").len();
        assert_eq!(found, kept, "round {round}: the period whole or not at all");
        let holder = if took { &b } else { &a };
        first.release_lease(holder).await.expect("released");
    }
}

#[tokio::test]
async fn an_sqlite_journal_keeps_what_is_written_and_is_created_on_first_use() {
    let dir = TempDir::new("journal");
    let url = sqlite_url(&dir.0);
    let store = JournalStore::open(&url).await.expect("opens");
    reads_back_by_every_filter(&store).await;
    drop(store);
    // Opened again, as after a restart: the records are there.
    let again = JournalStore::open(&url).await.expect("opens again");
    let kept = again.read(&EventFilter::default(), 10).await.expect("read");
    assert_eq!(kept.len(), 10);
    let other = JournalStore::open(&url)
        .await
        .expect("a second console on the file");
    one_holder_at_a_time(&again, &other).await;
    terms_rise_with_each_holder_and_fence_the_last(&again, &other).await;

    // The recording console's lock: on a file beside the journal, which
    // one console holds at a time, free as soon as it lets go (or its
    // process ends).
    let (mut first, mut second) = (Presence::default(), Presence::default());
    assert!(first.hold(&again).await);
    assert!(!second.hold(&other).await, "one console holds it");
    assert!(first.hold(&again).await, "kept");
    first.let_go();
    assert!(second.hold(&other).await, "free once let go");
    second.let_go();
    // Said once while kept; again once got anew (here on a file put in
    // the place of its own): another may have said so meanwhile.
    let lock = again.lock_file().expect("beside the journal");
    assert!(first.hold(&again).await);
    first.announced();
    assert!(first.hold(&again).await && !first.unannounced(), "kept");
    first.let_go();
    assert!(first.hold(&again).await && first.unannounced(), "got again");
    first.announced();
    std::fs::remove_file(lock).expect("deleted");
    assert!(first.hold(&again).await, "taken on the file there now");
    assert!(first.unannounced(), "got anew");
    first.let_go();
    // Its file deleted under the holder: still one holder, of the file
    // that is there now.
    assert!(first.hold(&again).await);
    std::fs::remove_file(lock).expect("deleted");
    assert!(second.hold(&other).await, "the file there now is free");
    assert!(
        !first.hold(&again).await,
        "a lock on a file nobody can open is given up"
    );
    assert!(second.hold(&other).await, "kept");
    second.let_go();
    the_lease_is_taken_over_only_from_a_holder_whose_lock_is_gone(&again, &other).await;
}

#[tokio::test]
async fn a_postgres_journal_is_shared_and_read_the_same_way() {
    let server = Postgres::start().await;
    let store = JournalStore::open(&server.url).await.expect("opens");
    let other = JournalStore::open(&server.url)
        .await
        .expect("a second console");
    reads_back_by_every_filter(&store).await;
    let seen = other.read(&EventFilter::default(), 10).await.expect("read");
    assert_eq!(seen.len(), 10, "one journal for both consoles");
    one_holder_at_a_time(&store, &other).await;
    terms_rise_with_each_holder_and_fence_the_last(&store, &other).await;

    // The recording console's session lock: one holder, kept while its
    // session lives, free for another as soon as it ends.
    let (mut first, mut second) = (Presence::default(), Presence::default());
    assert!(first.hold(&store).await);
    assert!(!second.hold(&other).await, "one session holds it");
    assert!(first.hold(&store).await, "kept");
    assert!(!second.hold(&other).await, "still");
    first.let_go();
    until_within(
        LOCK_FREED,
        "free once the holder's session ended",
        async || second.hold(&other).await.then_some(()),
    )
    .await;
    assert!(!first.hold(&store).await, "and now the other's");
    second.let_go();
    the_lease_is_taken_over_only_from_a_holder_whose_lock_is_gone(&store, &other).await;
}

/// A PostgreSQL journal from before the schema had versions (and from
/// before `latest`, `recorded_by` and the kind's index) is brought up to
/// date at the next start, with every record it had.
#[tokio::test]
async fn a_postgres_journal_from_before_versions_is_brought_up_to_date() {
    let server = Postgres::start().await;
    let store = JournalStore::open(&server.url).await.expect("opens");
    store.append(&events("eu", 20)).await.expect("written");
    let everything = EventFilter::default();
    let before = store.read(&everything, 100).await.expect("read");
    let present = store.latest_states().await.expect("read");
    drop(store);
    server.ask(
        "DROP TABLE journal_schema; DROP TABLE latest; DROP TABLE latest_upto; \
         DROP INDEX journal_kind; ALTER TABLE recorded DROP COLUMN recorded_by",
    );
    let store = JournalStore::open(&server.url).await.expect("opens again");
    assert_eq!(store.schema_version().await.expect("read"), SCHEMA_VERSION);
    assert_eq!(store.read(&everything, 100).await.expect("read"), before);
    assert_eq!(store.latest_states().await.expect("read"), present);
    let has = |sql: &str| server.ask(sql) == "1";
    assert!(has("SELECT COUNT(*) FROM information_schema.columns \
         WHERE table_name = 'recorded' AND column_name = 'recorded_by'"));
    assert!(has(
        "SELECT COUNT(*) FROM pg_indexes WHERE indexname = 'journal_kind'"
    ));
    JournalStore::open(&server.url).await.expect("and again");
    assert_eq!(
        server.ask("SELECT COUNT(*) FROM journal_schema"),
        SCHEMA_VERSION.to_string()
    );
}

/// Tables dropped by hand from a journal whose version says it has them
/// are made again at the next open, and `latest` is filled again from
/// the records, rather than every write failing behind a version that
/// says all is there.
#[tokio::test]
async fn a_postgres_journal_missing_a_table_its_version_promises_is_mended() {
    let server = Postgres::start().await;
    let store = JournalStore::open(&server.url).await.expect("opens");
    store.append(&events("eu", 20)).await.expect("written");
    let present = store.latest_states().await.expect("read");
    drop(store);
    server.ask("DROP TABLE latest; DROP TABLE samples; DROP TABLE attempts_written");
    let store = JournalStore::open(&server.url).await.expect("opens again");
    assert_eq!(store.latest_states().await.expect("read"), present);
    for table in ["latest", "samples", "attempts_written"] {
        assert_eq!(
            server.ask(&format!(
                "SELECT COUNT(*) FROM information_schema.tables WHERE table_name = '{table}'"
            )),
            "1",
            "{table} made again"
        );
    }
    store
        .append(&events("eu", 2))
        .await
        .expect("written as before");
}

/// A console that starts while another prunes (a month of records may
/// take minutes) neither waits for the prune nor makes every console's
/// writes wait behind it: it asks for no lock on a table that exists.
#[tokio::test]
async fn a_console_started_during_a_long_prune_neither_waits_nor_stalls_writes() {
    let server = Postgres::start().await;
    let store = JournalStore::open(&server.url).await.expect("opens");
    // As the prune's DELETE holds the journal's table, for 30 s.
    let mut prune = server
        .psql()
        .args([
            "-c",
            "BEGIN; DELETE FROM journal WHERE at < 0; SELECT pg_sleep(30); COMMIT;",
        ])
        .spawn()
        .expect("psql runs");
    let held = "SELECT COUNT(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation \
                WHERE c.relname = 'journal' AND l.mode = 'RowExclusiveLock' AND l.granted";
    until_within(LOCK_FREED, "the prune holds the table", async || {
        (server.ask(held) == "1").then_some(())
    })
    .await;
    let within = std::time::Duration::from_secs(10);
    let started = tokio::time::timeout(within, JournalStore::open(&server.url)).await;
    let written = tokio::time::timeout(within, store.append(&events("eu", 2))).await;
    let _ = prune.kill();
    let _ = prune.wait();
    started.expect("not behind the prune").expect("opens");
    written.expect("nor are writes").expect("written");

    // A schema whose name SQL would fold or refuse unquoted: the tables
    // are made there, and found there at the next start.
    server
        .ask(r#"CREATE SCHEMA "Ops-Console"; ALTER ROLE postgres SET search_path = "Ops-Console""#);
    for start in ["made", "found"] {
        JournalStore::open(&server.url).await.expect(start);
    }
    assert_eq!(
        server.ask("SELECT COUNT(*) FROM pg_tables WHERE schemaname = 'Ops-Console' AND tablename = 'journal'"),
        "1"
    );
}

async fn the_lease_is_taken_over_only_from_a_holder_whose_lock_is_gone(
    first: &JournalStore,
    second: &JournalStore,
) {
    let nothing = period(&[], &[], 4_000, &[]);
    // a records without the lock (it has not got it yet): b, finding the
    // lock free, must not take a live recorder's lease.
    assert!(first.hold_lease("a", 60).await.expect("lease").is_some());
    assert!(
        first
            .record_period("a", 60, &nothing, false)
            .await
            .expect("written")
    );
    let (mut a, mut b) = (Presence::default(), Presence::default());
    assert!(b.hold(second).await, "free");
    assert!(
        second
            .take_lease_over("b", 60)
            .await
            .expect("asked")
            .is_none(),
        "a never had the lock"
    );
    b.let_go();
    // a gets the lock and says so; its session ends (it died): b takes over.
    until_within(LOCK_FREED, "a gets the lock once b let it go", async || {
        a.hold(first).await.then_some(())
    })
    .await;
    assert!(
        first
            .record_period("a", 60, &nothing, true)
            .await
            .expect("written")
    );
    assert!(!b.hold(second).await, "a holds it");
    a.let_go();
    until_within(
        LOCK_FREED,
        "taken over long before the lease's minute",
        async || {
            (b.hold(second).await
                && second
                    .take_lease_over("b", 60)
                    .await
                    .expect("asked")
                    .is_some())
            .then_some(())
        },
    )
    .await;
    assert_eq!(
        second.lease().await.expect("read").map(|(h, _)| h),
        Some("b".into())
    );
    assert!(
        !first
            .record_period("a", 60, &nothing, false)
            .await
            .expect("asked"),
        "a, were it alive, writes nothing more"
    );
}

/// A statement the console has given up on (it waited past its time for
/// a row another session holds) is ended by the server as well: it does
/// not go on waiting there, holding a connection and its place in line.
#[tokio::test]
async fn a_statement_the_console_gave_up_on_does_not_go_on_in_postgres() {
    use std::io::{BufRead, Write};
    let server = Postgres::start().await;
    let store = JournalStore::open(&server.url).await.expect("opens");
    assert!(store.hold_lease("a", 60).await.expect("lease").is_some());
    // Another session takes the lease's row, and keeps it.
    let mut session = server
        .psql()
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("psql runs");
    let mut to = session.stdin.take().expect("its input");
    writeln!(
        to,
        "BEGIN; SELECT holder FROM recorder WHERE name = 'journal' FOR UPDATE;"
    )
    .expect("written");
    let mut answer = String::new();
    std::io::BufReader::new(session.stdout.take().expect("its output"))
        .read_line(&mut answer)
        .expect("read");
    assert_eq!(answer.trim(), "a", "the row is held");

    let asked = std::time::Instant::now();
    let renewed = store.hold_lease("a", 60).await;
    assert!(renewed.is_err(), "{renewed:?}");
    assert!(asked.elapsed() < std::time::Duration::from_secs(15));
    let waiting = "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'";
    crate::support::poll::until_within(
        std::time::Duration::from_secs(5),
        "the server ends the statement the console gave up on",
        async || (server.ask(waiting) == "0").then_some(()),
    )
    .await;
    drop(to);
    let _ = session.wait();
}

#[tokio::test]
async fn consoles_starting_together_on_a_new_postgres_all_open_it() {
    // PostgreSQL's CREATE ... IF NOT EXISTS is not safe against itself: two
    // sessions creating one table at once can both pass the check, and the
    // second fails on the catalog's own unique index.
    for _ in 0..3 {
        let server = Postgres::start().await;
        let opens: Vec<_> = (0..8)
            .map(|_| {
                let url = server.url.clone();
                tokio::spawn(async move { JournalStore::open(&url).await })
            })
            .collect();
        for open in opens {
            open.await
                .expect("no panic")
                .expect("every console opens the journal");
        }
    }
}

/// Consoles opening the journal (each checks its tables, and takes in
/// what the table of the newest records lacks) while another writes to it:
/// every open and every write goes through, none waits on the other for
/// good, and every record is there once.
async fn consoles_start_while_another_writes(url: &str) {
    let writer = JournalStore::open(url).await.expect("opens");
    let writes = tokio::spawn(async move {
        for round in 0..30 {
            writer
                .append(&events(&format!("w{round}"), 200))
                .await
                .expect("every write goes through");
        }
        writer
    });
    let opens: Vec<_> = (0..6)
        .map(|_| {
            let url = url.to_string();
            tokio::spawn(async move { JournalStore::open(&url).await })
        })
        .collect();
    for open in opens {
        tokio::time::timeout(std::time::Duration::from_secs(60), open)
            .await
            .expect("opened within a minute")
            .expect("no panic")
            .expect("every console opens the journal");
    }
    let writer = tokio::time::timeout(std::time::Duration::from_secs(60), writes)
        .await
        .expect("written within a minute")
        .expect("no panic");
    for round in [0, 29] {
        let filter = EventFilter {
            cluster: Some(format!("w{round}")),
            ..EventFilter::default()
        };
        assert_eq!(writer.read(&filter, 1_000).await.expect("read").len(), 200);
    }
}

#[tokio::test]
async fn consoles_start_while_another_writes_to_postgres() {
    let server = Postgres::start().await;
    consoles_start_while_another_writes(&server.url).await;
}

#[tokio::test]
async fn consoles_start_while_another_writes_to_sqlite() {
    let dir = TempDir::new("journal-opens");
    consoles_start_while_another_writes(&sqlite_url(&dir.0)).await;
}

#[tokio::test]
async fn a_database_that_is_not_there_is_said_with_its_address_and_no_password() {
    let port = crate::support::helpers::free_port();
    let url = format!("postgres://alice:s3cret@127.0.0.1:{port}/journal");
    let error = JournalStore::open(&url)
        .await
        .expect_err("nothing listens")
        .to_string();
    assert!(error.contains(&format!("127.0.0.1:{port}")), "{error}");
    assert!(!error.contains("s3cret"), "{error}");
    let url = format!("postgres://alice@127.0.0.1:{port}/journal?sslmode=disable&password=s3cret");
    let error = JournalStore::open(&url)
        .await
        .expect_err("nothing listens")
        .to_string();
    assert!(!error.contains("s3cret"), "nor in its query: {error}");
    assert!(
        error.contains("sslmode=disable"),
        "the rest of the address is said: {error}"
    );
    let error = JournalStore::open("mysql://x")
        .await
        .expect_err("not ours")
        .to_string();
    assert!(error.contains("sqlite: or postgres:"), "{error}");
    let dir = TempDir::new("journal-unwritable");
    let url = format!(
        "sqlite://{}/no/such/dir/journal.db?mode=rwc",
        dir.0.display()
    );
    assert!(JournalStore::open(&url).await.is_err());
}
