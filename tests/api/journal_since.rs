//! The journal's "since when, who and why" as pages show it: a cordon's
//! reason and start kept across a restart, a replica's state found or seen
//! to begin, an unhealthy GPU dated, a model's status on its explain page.

use app::audit_record::Outcome;
use app::urls;
use llmgw_journal::EventFilter;
use llmgw_journal::event::{Event, NODE_STATE_ACTION};
use llmgw_journal::record::EventKind;

use crate::support::helpers::{BASE, fetch_page, http, simulator_list};
use crate::support::html::Page;
use crate::support::journal_steps::*;
use crate::support::poll::until;
use crate::support::process::{Process, metric};

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
        .find_map(|e| match e.event() {
            Some(Event::Attempt(a)) if a.outcome == Outcome::Done => Some(a),
            _ => None,
        })
        .expect("the attempt's outcome");
    assert_eq!(
        (done.action, done.node, done.state),
        (NODE_STATE_ACTION, Some(node.as_str()), Some("cordoned"))
    );
    assert_eq!(done.note.as_deref(), Some(reason));
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
