//! Steps the journal's tests take again and again, on the release binary
//! and the simulator: changing a node upstream or through the console,
//! reading what the journal holds, starting a console that records, and
//! waiting for what its pages and `/readyz` say.

use llmgw_journal::record::{EventKind, JournalEvent};
use llmgw_journal::{EventFilter, JournalStore};

use crate::support::databases::{TempDir, sqlite_url};
use crate::support::helpers::{fetch_page, http, simulator_list};
use crate::support::html::Page;
use crate::support::poll::until;
use crate::support::process::Process;

/// The simulator's nodes, as its admin API lists them.
pub(crate) async fn all_nodes(simulator: &Process) -> Vec<serde_json::Value> {
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
pub(crate) fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_secs() as i64
}

/// An SQLite journal in a directory of its own, made before any console
/// runs on it, for the test to write what an earlier console would have.
pub(crate) async fn journal_before_a_console(name: &str) -> (TempDir, JournalStore) {
    let dir = TempDir::new(name);
    let store = JournalStore::open(&sqlite_url(&dir.0))
        .await
        .expect("opens");
    (dir, store)
}

/// The newest start of recording in the journal.
pub(crate) async fn newest_start(store: &JournalStore) -> JournalEvent {
    let filter = EventFilter {
        kinds: vec![EventKind::RecordingStarted],
        ..EventFilter::default()
    };
    let mut starts = store.read(&filter, 1).await.expect("the journal reads");
    starts.pop().expect("recording has started")
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
pub(crate) struct Recording {
    pub(crate) console: Process,
    pub(crate) store: JournalStore,
    /// What started the console, to start it again on the same journal.
    pub(crate) args: Vec<String>,
    pub(crate) _dir: TempDir,
}

pub(crate) async fn recording(simulator: &Process, name: &str) -> Recording {
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
pub(crate) fn limit_file_size(process: &Process, bytes: Option<u64>) {
    let limit = bytes.map_or("unlimited".to_string(), |b| b.to_string());
    let status = std::process::Command::new("prlimit")
        .args(["--pid", &process.pid().to_string()])
        .arg(format!("--fsize={limit}:unlimited"))
        .status()
        .expect("prlimit runs");
    assert!(status.success(), "prlimit {limit}");
}

/// Fails a GPU of `node` in the simulator (or fixes it), as its agent
/// would report.
pub(crate) async fn set_gpu(simulator: &Process, node: &str, line: &str, healthy: bool) {
    let answer = http()
        .post(format!("{}/_simulator/gpu", simulator.url))
        .json(&serde_json::json!({ "node": node, "line": line, "healthy": healthy }))
        .send()
        .await
        .expect("the simulator answers");
    assert!(answer.status().is_success(), "{}", answer.status());
}
