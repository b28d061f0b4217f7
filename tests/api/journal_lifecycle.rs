//! Consoles coming and going on one journal: two on one PostgreSQL
//! database, one killed mid-write or killed and started again, and the
//! prune a start makes.

use std::time::Duration;

use llmgw_journal::record::{EventKind, JournalEvent};
use llmgw_journal::{EventFilter, JournalStore};

use crate::support::databases::{Postgres, TempDir, sqlite_url};
use crate::support::journal_steps::*;
use crate::support::poll::until;
use crate::support::process::Process;

#[tokio::test]
async fn two_consoles_on_one_postgres_record_each_change_once_and_take_over() {
    let server = Postgres::start().await;
    let simulator = Process::simulator().await;
    let args = console_args(&simulator, ["--database", &server.url]);
    let first = Process::start(&args).await;
    let second = Process::start(&args).await;
    let store = JournalStore::open(&server.url)
        .await
        .expect("the database answers");
    until("one of them records", async || {
        (count(&store, EventKind::RecordingStarted).await == 1).then_some(())
    })
    .await;

    let ready = cordon_one_upstream(&simulator, &store).await;
    // A few more periods: the other console has not recorded it too.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(of_node(&store, &ready[0]).await.len(), 1, "recorded once");
    assert_eq!(count(&store, EventKind::RecordingStarted).await, 1);

    // The recording console dies (SIGKILL): its database session ends with
    // it, and the other takes over at its next period, before the dead
    // one's lease (ten seconds here) could lapse.
    let (holder, expires) = store.lease().await.expect("the lease reads").expect("held");
    let (dead, alive) = if holder.starts_with(&format!("{}-", first.pid())) {
        (first, second)
    } else {
        (second, first)
    };
    drop(dead);
    until("the other console takes over", async || {
        (count(&store, EventKind::RecordingStarted).await == 2).then_some(())
    })
    .await;
    let started = newest_start(&store).await;
    assert!(
        started.at < expires,
        "taken over at {}, before the lease lapsed at {expires}",
        started.at
    );
    set_state_upstream(&simulator, &ready[1], "draining").await;
    until("the survivor records", async || {
        (!of_node(&store, &ready[1]).await.is_empty()).then_some(())
    })
    .await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let events = of_node(&store, &ready[1]).await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].after.as_deref(), Some("draining"));

    // Stopped as for an upgrade, the recording console lets the lease go:
    // the next one records at once.
    let mut alive = alive;
    assert!(alive.terminate_within(Duration::from_secs(10)), "stops");
    assert_eq!(store.lease().await.expect("reads"), None, "let go");
}

#[tokio::test]
async fn a_console_killed_while_it_writes_leaves_a_journal_that_opens() {
    // A large cluster, so that each period writes and a kill often lands
    // in the middle of it.
    let simulator = Process::simulator_of(&["--nodes", "3000", "--models", "300"]).await;
    let dir = TempDir::new("journal-kill");
    let data = dir.0.display().to_string();
    let args = console_args(&simulator, ["--data-dir", &data]);
    let store = JournalStore::open(&sqlite_url(&dir.0))
        .await
        .expect("opens");
    for round in 1..=4 {
        let console = Process::start(&args).await;
        until("recording has started", async || {
            (count(&store, EventKind::RecordingStarted).await == round).then_some(())
        })
        .await;
        let ready = nodes_in(&simulator, "ready").await;
        for node in ready.iter().take(200) {
            set_state_upstream(&simulator, node, "cordoned").await;
        }
        tokio::time::sleep(Duration::from_millis(700 + 150 * round as u64)).await;
        drop(console); // SIGKILL
        for node in ready.iter().take(200) {
            set_state_upstream(&simulator, node, "ready").await;
        }
    }
    assert_eq!(store.integrity().await.expect("checks"), "ok");
    let reopened = JournalStore::open(&sqlite_url(&dir.0))
        .await
        .expect("opens after the kills");
    assert!(
        !reopened
            .read(&EventFilter::default(), 10)
            .await
            .expect("reads")
            .is_empty()
    );
}

/// A console killed and started again on its SQLite journal records at
/// once: the lock it held on a file beside the journal went with its
/// process, so the new one takes the lease over instead of waiting for it
/// to lapse (three periods, here a minute).
#[tokio::test]
async fn a_console_killed_and_started_again_on_sqlite_records_at_once() {
    let simulator = Process::simulator().await;
    let dir = TempDir::new("journal-restart");
    let data = dir.0.display().to_string();
    let args = [
        "--admin-api",
        &simulator.url,
        "--refresh-seconds",
        "20",
        "--log",
        "warn",
        "--data-dir",
        &data,
    ];
    let store = JournalStore::open(&sqlite_url(&dir.0))
        .await
        .expect("opens");
    let console = Process::start(&args).await;
    until("recording has started", async || {
        (count(&store, EventKind::RecordingStarted).await == 1).then_some(())
    })
    .await;
    drop(console); // SIGKILL
    let killed = std::time::Instant::now();
    let _console = Process::start(&args).await;
    until("recording has started again", async || {
        (count(&store, EventKind::RecordingStarted).await == 2).then_some(())
    })
    .await;
    assert!(
        killed.elapsed() < Duration::from_secs(20),
        "records again {} s after the kill; its lease held a minute",
        killed.elapsed().as_secs()
    );
}

#[tokio::test]
async fn a_console_prunes_what_is_older_than_retain_at_its_start() {
    let simulator = Process::simulator().await;
    let (dir, store) = journal_before_a_console("journal-retain").await;
    let now = unix_now();
    let days = |n: i64| now - n * 86_400;
    let nodes = nodes_in(&simulator, "ready").await;
    let changed = |at, node: &str| {
        JournalEvent::new(at, "default", EventKind::NodeState)
            .node(node)
            .change("cordoned", "ready")
    };
    // A node's state changed 41 days ago and again 40 days ago; others'
    // 29 days and a day ago.
    let written = [
        changed(days(41), &nodes[0]),
        changed(days(40), &nodes[0]),
        changed(days(29), &nodes[1]),
        changed(days(1), &nodes[2]),
    ];
    store.append(&written).await.expect("written");
    let states = EventFilter {
        kinds: vec![EventKind::NodeState],
        ..EventFilter::default()
    };
    let before = store.read(&states, 100).await.expect("the journal reads");
    assert_eq!(before.len(), written.len(), "{before:?}");
    let data = dir.0.display().to_string();
    let mut args = console_args(&simulator, ["--data-dir", &data]);
    args.extend(["--retain", "30"]);
    let _console = Process::start(&args).await;
    let kept = until("the start's prune has run", async || {
        let kept = store.read(&states, 100).await.expect("the journal reads");
        kept.iter().all(|e| e.at != days(41)).then_some(kept)
    })
    .await;
    for (at, node) in [(days(29), &nodes[1]), (days(1), &nodes[2])] {
        assert!(
            kept.iter()
                .any(|e| e.at == at && e.node.as_deref() == Some(node.as_str())),
            "a record within --retain is kept: {kept:?}"
        );
    }
}
