//! The journal as operators run it: the release binary recording a
//! simulated cluster into an SQLite file or a PostgreSQL server of the
//! test's own; a cordon's reason kept and shown; a restart, a SIGKILL and a
//! second console on the same database.

use std::time::{Duration, Instant};

use app::journal_record::{EventKind, JournalEvent};
use app::server::journal::{EventFilter, JournalStore};
use app::urls;

use crate::databases::{Postgres, TempDir, sqlite_url};
use crate::helpers::{BASE, fetch_page, http, simulator_list};
use crate::html::Page;
use crate::process::Process;

/// Asks `check` every 200 ms until it gives something, for at most 30 s.
pub(crate) async fn until<T>(what: &str, check: impl AsyncFn() -> Option<T>) -> T {
    until_within(Duration::from_secs(30), what, check).await
}

/// Likewise, for at most `limit`.
pub(crate) async fn until_within<T>(
    limit: Duration,
    what: &str,
    check: impl AsyncFn() -> Option<T>,
) -> T {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(found) = check().await {
            return found;
        }
        assert!(
            Instant::now() < deadline,
            "after {} s, still not: {what}",
            limit.as_secs()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The simulator's nodes, as its admin API lists them.
async fn all_nodes(simulator: &Process) -> Vec<serde_json::Value> {
    simulator_list(&simulator.url, "nodes").await
}

/// The nodes the simulator lists in `state`.
pub(crate) async fn nodes_in(simulator: &Process, state: &str) -> Vec<String> {
    all_nodes(simulator)
        .await
        .iter()
        .filter(|n| n["state"] == state)
        .filter_map(|n| n["id"].as_str().map(str::to_string))
        .collect()
}

/// Changes a node behind the console's back, as `llmgw ctl` would.
pub(crate) async fn set_state_upstream(simulator: &Process, node: &str, state: &str) {
    let answer = http()
        .post(format!("{}/api/v1/nodes/{node}/state", simulator.url))
        .header("x-llmgw-actor", "ctl")
        .json(&serde_json::json!({ "state": state }))
        .send()
        .await
        .expect("the simulator answers");
    assert!(answer.status().is_success(), "{}", answer.status());
}

/// Cordons the first ready node upstream and waits until that is
/// recorded; the nodes that were ready, that one first.
pub(crate) async fn cordon_one_upstream(simulator: &Process, store: &JournalStore) -> Vec<String> {
    let ready = nodes_in(simulator, "ready").await;
    set_state_upstream(simulator, &ready[0], "cordoned").await;
    until("the change is recorded", async || {
        (!of_node(store, &ready[0]).await.is_empty()).then_some(())
    })
    .await;
    ready
}

/// Asks the console to cordon `node`, with `reason`, as its dialog does.
pub(crate) async fn cordon(console: &Process, node: &str, reason: &str) -> reqwest::Response {
    http()
        .post(format!("{}/api/set_node_state", console.url))
        .form(&[
            ("node", node),
            ("state", "cordoned"),
            ("confirm", "yes"),
            ("reason", reason),
        ])
        .send()
        .await
        .expect("the console answers")
}

pub(crate) async fn of_node(store: &JournalStore, node: &str) -> Vec<JournalEvent> {
    let filter = EventFilter {
        node: Some(node.to_string()),
        ..EventFilter::default()
    };
    store.read(&filter, 100).await.expect("the journal reads")
}

pub(crate) async fn count(store: &JournalStore, kind: EventKind) -> usize {
    let filter = EventFilter {
        kinds: vec![kind],
        ..EventFilter::default()
    };
    store
        .read(&filter, 1_000)
        .await
        .expect("the journal reads")
        .len()
}

/// Seconds since 1970 by this machine's clock, as the console dates.
fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_secs() as i64
}

/// An SQLite journal in a directory of its own, made before any console
/// runs on it, for the test to write what an earlier console would have.
async fn journal_before_a_console(name: &str) -> (TempDir, JournalStore) {
    let dir = TempDir::new(name);
    let store = JournalStore::open(&sqlite_url(&dir.0))
        .await
        .expect("opens");
    (dir, store)
}

/// The newest start of recording in the journal.
async fn newest_start(store: &JournalStore) -> JournalEvent {
    let filter = EventFilter {
        kinds: vec![EventKind::RecordingStarted],
        ..EventFilter::default()
    };
    let mut starts = store.read(&filter, 1).await.expect("the journal reads");
    starts.pop().expect("recording has started")
}

/// A series of the console's `/metrics` without labels.
pub(crate) async fn metric(console: &Process, name: &str) -> Option<f64> {
    let text = http()
        .get(format!("{}/metrics", console.root))
        .send()
        .await
        .expect("the console answers")
        .text()
        .await
        .expect("text");
    text.lines().find_map(|l| {
        let rest = l.strip_prefix(name)?;
        let rest = rest.strip_prefix("{}").unwrap_or(rest);
        rest.strip_prefix(' ')?.parse().ok()
    })
}

pub(crate) fn console_args<'a>(simulator: &'a Process, journal: [&'a str; 2]) -> Vec<&'a str> {
    let mut args = vec![
        "--admin-api",
        simulator.url.as_str(),
        "--refresh-seconds",
        "1",
        "--record-seconds",
        "1",
        "--log",
        "warn",
    ];
    args.extend(journal);
    args
}

/// A console recording `simulator` into an SQLite journal in a directory
/// of its own, once it has started recording, with the journal open for
/// the test to read.
struct Recording {
    console: Process,
    store: JournalStore,
    /// What started the console, to start it again on the same journal.
    args: Vec<String>,
    _dir: TempDir,
}

async fn recording(simulator: &Process, name: &str) -> Recording {
    let dir = TempDir::new(name);
    let data = dir.0.display().to_string();
    let args: Vec<String> = console_args(simulator, ["--data-dir", &data])
        .into_iter()
        .map(str::to_string)
        .collect();
    let console = Process::start(&args.iter().map(String::as_str).collect::<Vec<_>>()).await;
    let store = JournalStore::open(&sqlite_url(&dir.0))
        .await
        .expect("the console made the file");
    until("recording has started", async || {
        (count(&store, EventKind::RecordingStarted).await == 1).then_some(())
    })
    .await;
    Recording {
        console,
        store,
        args,
        _dir: dir,
    }
}

#[tokio::test]
async fn a_cordon_keeps_its_reason_and_its_start_across_a_restart() {
    let simulator = Process::simulator().await;
    let Recording {
        console,
        store,
        args,
        _dir,
    } = recording(&simulator, "journal-console").await;

    // What recording costs this console is on /metrics, its reads apart.
    until("/metrics counts the recorded periods", async || {
        (metric(&console, "llmgw_console_journal_periods_total").await >= Some(2.0)).then_some(())
    })
    .await;
    let took = metric(&console, "llmgw_console_journal_recording_seconds_total").await;
    assert!(took.is_some_and(|s| s > 0.0 && s < 60.0), "{took:?}");

    let ready = nodes_in(&simulator, "ready").await;
    let (node, other) = (&ready[0], &ready[1]);
    let reason = "NVLink errors, RMA 4411";
    let answer = cordon(&console, node.as_str(), reason).await;
    assert_eq!(answer.status(), 200);

    // The attempt, with its reason, and the transition llmgw then lists.
    let events = until("the attempt and the transition are recorded", async || {
        let events = of_node(&store, node).await;
        let seen = |kind| events.iter().filter(|e| e.kind == kind).count();
        (seen(EventKind::Attempt) >= 2 && seen(EventKind::NodeState) == 1).then_some(events)
    })
    .await;
    let done = events
        .iter()
        .find(|e| e.kind == EventKind::Attempt && e.after.as_deref() == Some("done"))
        .expect("the attempt's outcome");
    assert_eq!(done.before.as_deref(), Some("set_node_state cordoned"));
    assert_eq!(done.detail.as_deref(), Some(reason));
    let change = events
        .iter()
        .find(|e| e.kind == EventKind::NodeState)
        .expect("the change");
    assert_eq!(
        (change.before.as_deref(), change.after.as_deref()),
        (Some("ready"), Some("cordoned"))
    );

    // On the events page the three records are one line, in operator
    // words, with the transition it caused.
    let events_page =
        Page::parse(&fetch_page(&console.root, &format!("/events?node={node}")).await);
    let lines = events_page.texts("table.events tbody tr td:nth-child(3)");
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("cordoned by ") && lines[0].ends_with(&format!(": {reason} — done")),
        "{lines:?}"
    );
    assert_eq!(
        events_page.texts("table.events tbody tr td:nth-child(4)"),
        ["node went ready → cordoned"]
    );

    let node_page = format!("/nodes/{node}");
    let shown = until(
        "the node page says since when, by whom and why",
        async || {
            let page = Page::parse(&fetch_page(&console.root, &node_page).await);
            let since = page.has(".since").then(|| page.text(".since"));
            since.filter(|s| s.contains(reason) && s.starts_with("for "))
        },
    )
    .await;
    assert!(shown.ends_with(&format!(": {reason}")), "{shown}");
    assert!(
        shown.starts_with("for "),
        "a start the record saw is dated, not a lower bound: {shown}"
    );

    // And the wall, in its trouble panel: what changed in the last hour,
    // newest first.
    let wall = until("the wall shows the last hour", async || {
        let page = Page::parse(&fetch_page(&console.root, "/wall?panels=trouble").await);
        page.has("ul.recent").then(|| page.texts("ul.recent li"))
    })
    .await;
    assert!(
        wall[0].contains(node.as_str()) && wall[0].contains("ready → cordoned"),
        "{wall:?}"
    );

    // A reason longer than a line, or a 64 KiB one, is refused before
    // anything is sent, and each refusal is recorded too.
    let refused = async |reason: &str| {
        let answer = cordon(&console, other.as_str(), reason).await;
        assert!(answer.status().is_client_error(), "{}", answer.status());
        assert!(
            nodes_in(&simulator, "ready").await.contains(other),
            "nothing was sent"
        );
    };
    refused(&"x".repeat(300)).await;
    let named = until("the refusal is recorded", async || {
        of_node(&store, other)
            .await
            .into_iter()
            .find(|e| e.kind == EventKind::Attempt && e.after.as_deref() == Some("refused"))
    })
    .await;
    assert!(
        named
            .detail
            .as_deref()
            .is_some_and(|d| d.contains("200 characters")),
        "{named:?}"
    );
    let refusals = async || {
        let filter = EventFilter {
            kinds: vec![EventKind::Attempt],
            ..EventFilter::default()
        };
        let all = store.read(&filter, 100).await.expect("reads");
        all.iter()
            .filter(|e| e.after.as_deref() == Some("refused"))
            .count()
    };
    refused(&"x".repeat(64 * 1024)).await;
    until(
        "the refusal of a request too large to read is recorded",
        async || (refusals().await == 2).then_some(()),
    )
    .await;

    // The record started from every node not ready, found as it began.
    let all_nodes = all_nodes(&simulator).await;
    let found_at_start = count(&store, EventKind::NodeSeen).await;
    assert!(found_at_start > 0, "the demo cluster has nodes not ready");
    assert_eq!(
        found_at_start,
        all_nodes.len() - ready.len(),
        "every node not ready at the start, and none other"
    );

    // Restarted at once: the gap is bridged, the cordon keeps its start and
    // its reason. Within the gap llmgw ctl cordons another node: the restart
    // finds that one changed, and dates it from then, not from the record's
    // start; the nodes that did not change are not found again.
    drop(console);
    let changed_unseen = &ready[2];
    set_state_upstream(&simulator, changed_unseen, "cordoned").await;
    let console = Process::start(&args.iter().map(String::as_str).collect::<Vec<_>>()).await;
    until("recording has started again", async || {
        (count(&store, EventKind::RecordingStarted).await == 2).then_some(())
    })
    .await;
    let found = |node: String| {
        let store = store.clone();
        async move {
            let filter = EventFilter {
                node: Some(node),
                kinds: vec![EventKind::NodeSeen],
                ..EventFilter::default()
            };
            store.read(&filter, 10).await.expect("reads")
        }
    };
    let restart = newest_start(&store).await;
    let gap = until("the change within the gap is found", async || {
        let seen = found(changed_unseen.clone()).await;
        (seen.len() == 1).then_some(seen)
    })
    .await;
    assert_eq!(gap[0].after.as_deref(), Some("cordoned"));
    assert_eq!(
        gap[0].before, None,
        "the record said nothing of it: found, not said to have changed"
    );
    assert_eq!(gap[0].at, restart.at, "found as the record resumed");
    assert!(
        found(ready[3].clone()).await.is_empty(),
        "a node ready all along is never found"
    );
    assert_eq!(
        count(&store, EventKind::NodeSeen).await,
        found_at_start + 1,
        "only what changed within the gap"
    );
    assert_eq!(
        count(&store, EventKind::ReplicaSeen).await,
        1,
        "the replica starting all along is found once: the restart bridged it"
    );
    let again = until("the restarted console reads the journal back", async || {
        let page = Page::parse(&fetch_page(&console.root, &node_page).await);
        let since = page.has(".since").then(|| page.text(".since"));
        since.filter(|s| s.contains(reason) && s.starts_with("for "))
    })
    .await;
    assert!(
        again.starts_with("for "),
        "a restart of seconds is not a gap: {again}"
    );
    assert!(again.ends_with(&format!(": {reason}")), "{again}");

    // The lists say it too, beside the state, and only there: a node
    // never changed says nothing it does not know.
    let list = Page::parse(&fetch_page(&console.root, "/nodes").await);
    let row = format!("tr[data-node=\"{node}\"] .since");
    assert!(list.has(&row), "the nodes list dates the cordon");
    let cell = list.text(&row);
    assert!(cell.ends_with(&format!(": {reason}")), "{cell}");
    assert!(!cell.starts_with('≥'), "a start the record saw: {cell}");
    // A ready node is the usual: its row says nothing more; its own page
    // dates it, from the record's start.
    let other_row = format!("tr[data-node=\"{other}\"] .since");
    assert!(!list.has(&other_row), "a ready row is one line");
    let other_page = Page::parse(&fetch_page(&console.root, &format!("/nodes/{other}")).await);
    let untouched = other_page.text(".facts .since");
    assert!(
        untouched.starts_with("since at least"),
        "a state the record found is dated from the record's start: {untouched}"
    );
    let overview = Page::parse(&fetch_page(&console.root, "/").await);
    assert!(overview.has(&row), "so does the overview's node table");
    let models = Page::parse(&fetch_page(&console.root, "/models").await);
    let rows = models.all("tr[data-model]").len();
    assert!(rows > 0);
    assert_eq!(
        models.all("tr[data-model] .since").len(),
        rows,
        "every model's status is dated"
    );
}

/// The cell "State" of `replica` on the replicas page, once the row is
/// there and says since when.
async fn replica_state_cell(console: &Process, replica: &str) -> Option<String> {
    let page = Page::parse(&fetch_page(&console.root, "/replicas").await);
    let row = page.row_keys("data-replica").contains(&replica.to_string());
    let cell = row.then(|| page.cell(page.row("data-replica", replica), "State"));
    cell.filter(|c| c.contains(' '))
}

#[tokio::test]
async fn a_replicas_state_says_since_when_it_was_found_or_seen_to_begin() {
    let simulator = Process::simulator().await;
    let Recording {
        console,
        store,
        args,
        _dir,
    } = recording(&simulator, "journal-replicas").await;

    // Found as recording started: the one replica not ready, and only it.
    let found = until("the replica not ready is found", async || {
        let filter = EventFilter {
            kinds: vec![EventKind::ReplicaSeen],
            ..EventFilter::default()
        };
        let found = store.read(&filter, 100).await.expect("the journal reads");
        (!found.is_empty()).then_some(found)
    })
    .await;
    let starting: Vec<_> = found.iter().map(|e| e.replica.as_deref()).collect();
    assert_eq!(starting, [Some("r-0006")], "{found:?}");
    assert_eq!(found[0].after.as_deref(), Some("starting"));
    let shown = until("the replicas page dates it", async || {
        replica_state_cell(&console, "r-0006").await
    })
    .await;
    assert!(shown.starts_with("starting ≥ "), "a lower bound: {shown}");
    let ready = until("a ready replica is dated from the start", async || {
        replica_state_cell(&console, "r-0003").await
    })
    .await;
    assert!(ready.starts_with("ready ≥ "), "{ready}");

    // A drain moves r-0003 elsewhere: a new replica, seen to appear ready,
    // is dated from then, on the replicas page and on its node's.
    set_state_upstream(&simulator, "gpu-l40s-01", "draining").await;
    let moved = until("the moved replica's appearance is recorded", async || {
        let filter = EventFilter {
            kinds: vec![EventKind::ReplicaAppeared],
            ..EventFilter::default()
        };
        let appeared = store.read(&filter, 10).await.expect("the journal reads");
        appeared.first().and_then(|e| e.replica.clone())
    })
    .await;
    let shown = until("the replicas page dates the new one", async || {
        replica_state_cell(&console, &moved)
            .await
            .filter(|c| !c.contains('≥'))
    })
    .await;
    assert!(
        shown == "ready < 1 m" || shown.starts_with("ready 1 m"),
        "seen to begin, not a lower bound: {shown}"
    );
    let moved_to = simulator_replica_node(&simulator, &moved)
        .await
        .expect("the moved replica is listed");
    let on_node = Page::parse(&fetch_page(&console.root, &format!("/nodes/{moved_to}")).await);
    let cell = on_node.cell(on_node.row("data-replica", &moved), "State");
    assert!(cell.starts_with("ready ") && !cell.contains('≥'), "{cell}");
    // The drain dialog lists what would move with the same date.
    let dialog = Page::parse(
        &fetch_page(
            &console.root,
            &urls::node_dialog("/nodes", "drain", &moved_to),
        )
        .await,
    );
    let line = dialog
        .texts(".drain-preview .moving li")
        .into_iter()
        .find(|l| l.starts_with(&moved))
        .expect("the dialog lists the moved replica");
    assert!(line.contains("(ready ") && !line.contains('≥'), "{line}");

    // Stopped while llmgw ctl drains the node it moved to: the replica
    // that went within the gap is recorded gone as recording resumes
    // (else the record would hold it, and keep it past every prune).
    drop(console);
    set_state_upstream(&simulator, &moved_to, "draining").await;
    until("the drain moves it away again", async || {
        let node = simulator_replica_node(&simulator, &moved).await;
        node.is_none().then_some(())
    })
    .await;
    let _console = Process::start(&args.iter().map(String::as_str).collect::<Vec<_>>()).await;
    let gone = until("the replica gone within the gap is recorded", async || {
        let filter = EventFilter {
            kinds: vec![EventKind::ReplicaGone],
            ..EventFilter::default()
        };
        let gone = store.read(&filter, 10).await.expect("the journal reads");
        gone.into_iter()
            .find(|e| e.replica.as_deref() == Some(moved.as_str()))
    })
    .await;
    assert_eq!(
        gone.detail.as_deref(),
        Some("went while the record had a gap"),
        "{gone:?}"
    );
    assert_eq!(
        gone.at,
        newest_start(&store).await.at,
        "as the record resumed"
    );
}

/// The node the simulator lists `replica`'s first shard on, if it lists
/// the replica.
async fn simulator_replica_node(simulator: &Process, replica: &str) -> Option<String> {
    let replicas = simulator_list(&simulator.url, "replicas").await;
    let r = replicas.iter().find(|r| r["id"] == replica)?;
    Some(
        r["shards"][0]["node"]
            .as_str()
            .expect("a shard")
            .to_string(),
    )
}

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

/// `/readyz`'s text once it says the journal is not written; its status
/// stays 200 throughout, for the live views need no journal.
pub(crate) async fn not_written(console: &Process) -> String {
    until("/readyz says the journal is not written", async || {
        let readyz = http()
            .get(format!("{}/readyz", console.root))
            .send()
            .await
            .expect("the console answers");
        assert_eq!(readyz.status(), 200, "the live views need no journal");
        let text = readyz.text().await.expect("text");
        text.contains("journal: not written").then_some(text)
    })
    .await
}

/// Waits until the pages no longer say the journal is not written.
pub(crate) async fn journal_written_again(console: &Process) {
    until("the pages stop saying so", async || {
        let page = Page::parse(&fetch_page(&console.root, "/nodes").await);
        (!page.has(".journal-down")).then_some(())
    })
    .await;
}

/// Sets how large the files `process` writes may grow (`prlimit`, from
/// util-linux): `None` lifts the limit.
fn limit_file_size(process: &Process, bytes: Option<u64>) {
    let limit = bytes.map_or("unlimited".to_string(), |b| b.to_string());
    let status = std::process::Command::new("prlimit")
        .args(["--pid", &process.pid().to_string()])
        .arg(format!("--fsize={limit}:unlimited"))
        .status()
        .expect("prlimit runs");
    assert!(status.success(), "prlimit {limit}");
}

#[tokio::test]
async fn a_journal_with_little_room_left_keeps_recording() {
    // Enough nodes that the states found at the start fill a log larger
    // than the room left.
    let simulator =
        Process::simulator_of(&["--nodes", "5000", "--models", "200", "--seed", "7"]).await;
    let Recording {
        console,
        store,
        args: _,
        _dir,
    } = recording(&simulator, "journal-little-room").await;
    until("the states found at the start are written", async || {
        (count(&store, EventKind::NodeSeen).await > 0).then_some(())
    })
    .await;
    // No file of the journal may grow past 448 KiB, as on a disk with
    // little room: a log that grows to SQLite's 4 MB before it is folded
    // into the file stops every write, for good.
    limit_file_size(&console, Some(448 * 1024));
    let node = nodes_in(&simulator, "ready").await.remove(0);
    for state in ["cordoned", "ready", "cordoned"] {
        set_state_upstream(&simulator, &node, state).await;
        until("the change is recorded", async || {
            let newest = of_node(&store, &node)
                .await
                .into_iter()
                .filter(|e| e.kind == EventKind::NodeState)
                .max_by_key(|e| e.id)?;
            (newest.after.as_deref() == Some(state)).then_some(())
        })
        .await;
    }
    let readyz = http()
        .get(format!("{}/readyz", console.root))
        .send()
        .await
        .expect("answers")
        .text()
        .await
        .expect("text");
    assert!(!readyz.contains("not written"), "{readyz}");
    assert_eq!(store.integrity().await.expect("checks"), "ok");
}

#[tokio::test]
async fn a_journal_that_may_grow_no_further_is_said_and_caught_up_when_it_can() {
    let simulator = Process::simulator().await;
    let Recording {
        console,
        store,
        args: _,
        _dir,
    } = recording(&simulator, "journal-full").await;
    until("the states found at the start are written", async || {
        (count(&store, EventKind::NodeSeen).await > 0).then_some(())
    })
    .await;

    // The journal's files may grow no further, as on a full disk: each
    // write past their first 4 KiB fails (and sends SIGXFSZ, which would
    // end a process that does not catch it).
    limit_file_size(&console, Some(4096));
    let node = nodes_in(&simulator, "ready").await.remove(0);
    let answer = cordon(&console, node.as_str(), "while the disk was full").await;
    assert_eq!(answer.status(), 200, "the change is carried out");
    let said = not_written(&console).await;
    assert!(said.contains("journal: not written"), "{said}");
    let page = Page::parse(&fetch_page(&console.root, "/nodes").await);
    assert!(page.has(".journal-down"), "the pages say so");
    // Neither says where the data lives on the server.
    let data = _dir.0.display().to_string();
    assert!(!said.contains(&data), "{said}");
    assert!(!page.text(".journal-down").contains(&data));
    assert!(page.has("main table"), "and still show the cluster");
    assert!(
        of_node(&store, &node).await.is_empty(),
        "nothing of the change could be written"
    );
    // The console's own change says who and why at once, from the audit
    // record it wrote, though the journal has not a record of it.
    let node_page = format!("/nodes/{node}");
    let shown = until("the node page says who cordoned it and why", async || {
        let page = Page::parse(&fetch_page(&console.root, &node_page).await);
        let since = page
            .has(".facts .since")
            .then(|| page.text(".facts .since"));
        since.filter(|s| s.contains("while the disk was full"))
    })
    .await;
    assert!(shown.contains(", by "), "{shown}");
    // A GPU that fails meanwhile is new and not yet dated, never "since
    // at least" the start of recording.
    let faulty = nodes_in(&simulator, "ready").await.remove(0);
    let line = "gpu 6: XID 79, fell off the bus";
    set_gpu(&simulator, &faulty, line, false).await;
    let note = until("the list shows the new fault", async || {
        let page = Page::parse(&fetch_page(&console.root, "/nodes").await);
        page.texts("tr.unhealthy")
            .into_iter()
            .find(|n| n.contains(line))
    })
    .await;
    assert!(note.contains("new, not yet dated"), "{note}");

    // Room again: what waited is written, and the pages stop saying so.
    limit_file_size(&console, None);
    let events = until("the change and its attempt are written", async || {
        let events = of_node(&store, &node).await;
        let has = |kind| events.iter().any(|e: &JournalEvent| e.kind == kind);
        (has(EventKind::Attempt) && has(EventKind::NodeState)).then_some(events)
    })
    .await;
    assert!(
        events
            .iter()
            .any(|e| e.detail.as_deref() == Some("while the disk was full")),
        "{events:?}"
    );
    journal_written_again(&console).await;
    until("the fault is dated", async || {
        let page = Page::parse(&fetch_page(&console.root, "/nodes").await);
        let notes = page.texts("tr.unhealthy");
        notes
            .iter()
            .any(|n| n.contains(line) && n.contains("unhealthy for "))
            .then_some(())
    })
    .await;
    assert_eq!(store.integrity().await.expect("checks"), "ok");
}

#[tokio::test]
async fn a_database_that_is_down_is_said_everywhere_and_caught_up_when_it_is_back() {
    let simulator = Process::simulator().await;
    let port = crate::helpers::free_port();
    let url = format!("postgres://postgres:s3cret@127.0.0.1:{port}/postgres");
    let args = console_args(&simulator, ["--database", &url]);
    let console = Process::start(&args).await;

    // The live views go on; every page and /readyz say the journal is not
    // written, without the password.
    let text = not_written(&console).await;
    assert!(text.contains("journal: not written"), "{text}");
    assert!(!text.contains("s3cret"), "{text}");
    assert_eq!(
        metric(&console, "llmgw_console_journal_up").await,
        Some(0.0)
    );
    for path in ["/", "/nodes", "/models"] {
        let page = Page::parse(&fetch_page(&console.root, path).await);
        assert!(
            page.has(".journal-down"),
            "{path} says nothing of the journal"
        );
        assert!(
            page.has("main table") || path == "/",
            "{path} still shows the cluster"
        );
        assert!(!page.text(".journal-down").contains("s3cret"));
    }

    // A change made meanwhile is carried out, and written once the
    // database is back.
    let node = nodes_in(&simulator, "ready").await.remove(0);
    let answer = cordon(&console, node.as_str(), "while the journal was down").await;
    assert_eq!(
        answer.status(),
        200,
        "no journal is no reason to refuse a change the audit log has"
    );
    assert!(!nodes_in(&simulator, "ready").await.contains(&node));

    let _server = Postgres::start_on(port).await;
    let store = until("the database answers", async || {
        JournalStore::open(&url).await.ok()
    })
    .await;
    let attempt = until(
        "the attempt made while it was down is written",
        async || {
            of_node(&store, &node)
                .await
                .into_iter()
                .find(|e| e.kind == EventKind::Attempt && e.after.as_deref() == Some("done"))
        },
    )
    .await;
    assert_eq!(
        attempt.detail.as_deref(),
        Some("while the journal was down")
    );
    journal_written_again(&console).await;
    assert_eq!(
        metric(&console, "llmgw_console_journal_up").await,
        Some(1.0)
    );
}

#[tokio::test]
async fn the_events_page_filters_pages_and_says_what_it_cannot_read() {
    let simulator = Process::simulator_of(&["--nodes", "200", "--models", "20"]).await;
    let Recording {
        console,
        store,
        _dir,
        ..
    } = recording(&simulator, "journal-events").await;
    let ready = nodes_in(&simulator, "ready").await;
    assert!(ready.len() >= 150, "{}", ready.len());
    for node in &ready[..150] {
        set_state_upstream(&simulator, node, "cordoned").await;
    }
    until("150 changes are recorded", async || {
        (count(&store, EventKind::NodeState).await == 150).then_some(())
    })
    .await;

    let rows = |page: &Page| page.texts("table.events tbody tr td:nth-child(2)");
    let first = Page::parse(&fetch_page(&console.root, "/events?kind=node_state").await);
    let first_rows = rows(&first);
    assert_eq!(first_rows.len(), 100, "a page holds 100");
    let older = first
        .one("a.older")
        .value()
        .attr("href")
        .expect("a link")
        .to_string();
    let second = Page::parse(&fetch_page(&console.root, &older.replace("/c/default", "")).await);
    let second_rows = rows(&second);
    assert_eq!(second_rows.len(), 50, "the rest");
    assert!(!second.has("a.older"), "nothing older");
    let mut all: Vec<String> = first_rows.into_iter().chain(second_rows).collect();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 150, "no record twice, none missing");

    // One node's records, on the events page and in its page's history.
    let node = &ready[7];
    let of_one = Page::parse(&fetch_page(&console.root, &format!("/events?node={node}")).await);
    assert_eq!(rows(&of_one), vec![node.clone()]);
    let node_page = Page::parse(&fetch_page(&console.root, &format!("/nodes/{node}")).await);
    assert!(
        node_page
            .text("section.history")
            .contains("ready → cordoned")
    );
    let overview = Page::parse(&fetch_page(&console.root, "/").await);
    assert_eq!(
        overview.texts("section.history tbody tr").len(),
        10,
        "the last hour's newest"
    );

    // What a crafted link carries is shown as text, or said not understood.
    let crafted = fetch_page(
        &console.root,
        "/events?node=%3Cscript%3Ealert(1)%3C%2Fscript%3E&since=yesterday",
    )
    .await;
    assert!(
        !crafted.contains("<script>alert(1)"),
        "markup from a link is never markup"
    );
    let crafted = Page::parse(&crafted);
    assert!(
        crafted.text("main").contains("is not a time"),
        "{}",
        crafted.text("main")
    );
    // A typo is said, not taken for "everything".
    let typo = Page::parse(
        &fetch_page(
            &console.root,
            "/events?kind=node_sate&nod=gpu-1&before=abc&%3Cb%3E=%3Cscript%3E",
        )
        .await,
    );
    let said = typo.text("main");
    for expected in [
        "kind=\"node_sate\" is not a kind of record",
        "nod=\"gpu-1\" is not something this page filters by",
        "before=\"abc\" is not a record's number",
        "<b>=\"<script>\" is not something",
    ] {
        assert!(said.contains(expected), "{expected}: {said}");
    }
    let huge = http()
        .get(format!("{}/events?node={}", console.url, "x".repeat(4_000)))
        .send()
        .await
        .expect("answers");
    assert!(!huge.status().is_server_error(), "{}", huge.status());
    let said = Page::parse(&huge.text().await.expect("a page"));
    assert!(
        said.text("main").contains("not a name"),
        "a name longer than any is said to be none"
    );

    // A window, said in moments; the form's From and To are moments too,
    // and fill themselves back in.
    let window = Page::parse(&fetch_page(&console.root, "/events?since=1h").await);
    assert!(
        window.text("p.window").starts_with("Records from "),
        "{}",
        window.text("main")
    );
    assert!(window.text("p.window").ends_with(" to now."));
    let between = Page::parse(
        &fetch_page(
            &console.root,
            "/events?since=1h&from=2026-01-02T03:04&to=2026-01-03T00:00",
        )
        .await,
    );
    assert_eq!(
        between.text("p.window"),
        "Records from 2026-01-02 03:04 UTC to 2026-01-03 00:00 UTC."
    );
    assert_eq!(
        between.one("input[name=from]").value().attr("value"),
        Some("2026-01-02T03:04")
    );
    assert_eq!(
        between.one("input[name=to]").value().attr("value"),
        Some("2026-01-03T00:00")
    );
    assert_eq!(
        between.texts("table.events tbody tr").len(),
        0,
        "nothing was recorded then"
    );
}

#[tokio::test]
async fn the_walls_trends_reach_back_a_week_from_the_store_and_survive_a_restart() {
    let simulator = Process::simulator().await;
    let (dir, store) = journal_before_a_console("journal-trends").await;
    // A week of samples as an earlier console kept them, and one older
    // than the trends reach back.
    let now = unix_now();
    let day = 86_400;
    for (ago, trouble) in [(8 * day, 99), (6 * day, 1), (3 * day, 42), (3600, 2)] {
        let sample = app::wall::Sample {
            at: now - ago,
            gpu_free: 10,
            gpu_total: 64,
            nodes_in_trouble: trouble,
            ..Default::default()
        };
        store.add_sample("default", &sample).await.expect("kept");
    }
    let data = dir.0.display().to_string();
    let console = Process::start(&console_args(&simulator, ["--data-dir", &data])).await;
    let span = until("the wall draws the stored week", async || {
        let page = Page::parse(&fetch_page(&console.root, "/wall?panels=trends").await);
        let span = page.text("[data-panel=trends] p.of");
        span.starts_with("over the last 6 d").then_some(span)
    })
    .await;
    assert!(
        !span.contains("8 d"),
        "older than a week is not drawn: {span}"
    );
    // The console that records keeps a sample of its own at once, and the
    // store is where the next console finds it.
    let kept = until("the console keeps a sample", async || {
        let kept = store
            .samples_after("default", now - 60)
            .await
            .expect("reads");
        (!kept.is_empty()).then_some(kept)
    })
    .await;
    assert!(kept.iter().all(|s| s.gpu_total > 0), "{kept:?}");
}

/// Fails a GPU of `node` in the simulator (or fixes it), as its agent
/// would report.
async fn set_gpu(simulator: &Process, node: &str, line: &str, healthy: bool) {
    let answer = http()
        .post(format!("{}/_simulator/gpu", simulator.url))
        .json(&serde_json::json!({ "node": node, "line": line, "healthy": healthy }))
        .send()
        .await
        .expect("the simulator answers");
    assert!(answer.status().is_success(), "{}", answer.status());
}

#[tokio::test]
async fn an_unhealthy_gpu_says_since_when_in_the_list_on_its_page_and_on_the_wall() {
    let simulator = Process::simulator().await;
    let nodes = all_nodes(&simulator).await;
    let already = nodes
        .iter()
        .find(|n| n["unhealthy"].as_array().is_some_and(|u| !u.is_empty()))
        .expect("the demo cluster has an unhealthy GPU");
    let old_line = already["unhealthy"][0]
        .as_str()
        .expect("a line")
        .to_string();
    let Recording {
        console,
        store,
        _dir,
        ..
    } = recording(&simulator, "journal-gpu").await;

    let node = nodes_in(&simulator, "ready").await.remove(0);
    let line = "gpu 5: XID 79, fell off the bus";
    set_gpu(&simulator, &node, line, false).await;
    let notes = until("the list dates the GPU", async || {
        let page = Page::parse(&fetch_page(&console.root, "/nodes").await);
        let notes = page.texts("tr.unhealthy");
        notes
            .iter()
            .any(|n| n.contains(line) && n.contains("unhealthy for "))
            .then_some(notes)
    })
    .await;
    // One unhealthy before the record began is dated from the record.
    assert!(
        notes
            .iter()
            .any(|n| n.contains(&old_line) && n.contains("unhealthy since at least")),
        "{notes:?}"
    );
    let page = Page::parse(&fetch_page(&console.root, &format!("/nodes/{node}")).await);
    let listed = page.texts(".unhealthy-list li");
    assert!(
        listed
            .iter()
            .any(|l| l.contains(line) && l.contains("unhealthy for ")),
        "{listed:?}"
    );
    let wall = Page::parse(&fetch_page(&console.root, "/wall?panels=trouble").await);
    let rows = wall.texts("[data-panel=trouble] ul.rows:not(.recent) li");
    assert!(
        rows.iter()
            .any(|r| r.contains(node.as_str()) && r.contains("unhealthy")),
        "{rows:?}"
    );

    // Fixed, it is no longer dated, and the journal says when it was.
    set_gpu(&simulator, &node, line, true).await;
    until("the fix is recorded", async || {
        of_node(&store, &node)
            .await
            .into_iter()
            .find(|e| e.kind == EventKind::GpuHealthy)
    })
    .await;
}

#[tokio::test]
async fn an_explain_page_says_since_when_its_model_is_in_its_state_and_shows_its_history() {
    let simulator = Process::simulator().await;
    let Recording {
        console,
        store,
        _dir,
        ..
    } = recording(&simulator, "journal-explain").await;
    // A model serving with nothing starting: asked for more than run, it
    // is not placed (what an operator's edit of the catalog does).
    let models = simulator_list(&simulator.url, "models").await;
    let model = models
        .iter()
        .find(|m| {
            let (ready, min, total) = (&m["ready"], &m["min"], &m["total"]);
            ready.as_i64() >= min.as_i64() && min.as_i64() > Some(0) && ready == total
        })
        .expect("a ready model");
    let name = model["name"].as_str().expect("named").to_string();
    let page = urls::placement(&name).replace(BASE, "");
    let since = until("the explain page dates the state found", async || {
        let page = Page::parse(&fetch_page(&console.root, &page).await);
        page.has(".model-line .since")
            .then(|| page.text(".model-line .since"))
    })
    .await;
    assert!(
        since.starts_with("since at least ") && since.contains("(recorded from then)"),
        "a state found at the record's start is not dated before it: {since}"
    );
    let min = model["ready"].as_i64().expect("a count") + 3;
    let answer = http()
        .post(format!("{}/_simulator/minimum", simulator.url))
        .json(&serde_json::json!({ "model": name, "min": min }))
        .send()
        .await
        .expect("the simulator answers");
    assert!(answer.status().is_success(), "{}", answer.status());
    let of_model = EventFilter {
        model: Some(name.clone()),
        kinds: vec![EventKind::ModelStatus],
        ..EventFilter::default()
    };
    let recorded = until("the change is recorded", async || {
        let read = store.read(&of_model, 10).await.expect("the journal reads");
        (!read.is_empty()).then_some(read)
    })
    .await;
    assert_eq!(recorded.len(), 1, "recorded once");
    let changed = until("the explain page dates the change", async || {
        let page = Page::parse(&fetch_page(&console.root, &page).await);
        let since = page.text(".model-line .since");
        since.starts_with("for ").then_some(page)
    })
    .await;
    let since = changed.text(".model-line .since");
    assert!(
        since.contains("(since ") && since.contains(" UTC)"),
        "{since}"
    );
    assert!(
        changed
            .text("section.history")
            .contains("ready → not placed"),
        "{}",
        changed.text("section.history")
    );
    // Another model's record is not in this one's history.
    let other = models
        .iter()
        .filter_map(|m| m["name"].as_str())
        .find(|n| !n.contains(name.as_str()) && !name.contains(n))
        .expect("another model");
    assert!(!changed.text("section.history").contains(other));
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
