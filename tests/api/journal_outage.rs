//! A journal's database that fills, may grow no further, or goes down:
//! said on every page and in `/readyz`, recording caught up after.

use llmgw_journal::JournalStore;
use llmgw_journal::record::{EventKind, JournalEvent};

use crate::support::databases::Postgres;
use crate::support::helpers::{fetch_page, http};
use crate::support::html::Page;
use crate::support::journal_steps::*;
use crate::support::poll::until;
use crate::support::process::{Process, metric};

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
    let port = crate::support::helpers::free_port();
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
