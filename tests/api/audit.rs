//! The audit: one record per attempt at a change, refused ones included,
//! whatever the log filter, and the page that lists them.

use std::sync::Arc;

use app::server::audit::{AuditLog, AuditRecord, Outcome};

use crate::support::helpers::{TestApp, http};
use crate::support::process::Process;

fn records_in(path: &std::path::Path) -> Vec<AuditRecord> {
    std::fs::read_to_string(path)
        .expect("the audit log exists")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[tokio::test]
async fn every_attempt_leaves_one_record_refused_ones_included() {
    let file = std::env::temp_dir().join(format!("llmgw-audit-test-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&file);
    let path = file.clone();
    let app = TestApp::spawn_with(move |cx| {
        cx.audit = Arc::new(AuditLog::new(Some(&path)).expect("opens"));
    })
    .await;
    let node = app.lists().nodes[0].id.clone();
    // A confirmed change of state, with one more header.
    let confirmed = |state: &'static str, header: (&'static str, &'static str)| {
        http()
            .post(format!("{}/api/set_node_state", app.console))
            .header(header.0, header.1)
            .form(&[
                ("node", node.clone()),
                ("state", state.into()),
                ("confirm", "yes".into()),
            ])
            .send()
    };
    // Done: a cordon by a user the proxy names.
    let done = confirmed("cordoned", ("x-forwarded-user", "ana"))
        .await
        .expect("answers");
    assert!(done.status().is_success());
    // Refused by the handler: no confirmation.
    let unconfirmed = app
        .server_fn("set_node_state", &[("node", &node), ("state", "draining")])
        .await;
    assert_eq!(unconfirmed.status(), 428);
    // Refused before any handler ran: another site sent it.
    let foreign = confirmed("draining", ("sec-fetch-site", "cross-site"))
        .await
        .expect("answers");
    assert_eq!(foreign.status(), 403);
    // Refused input.
    let bad = app
        .server_fn("set_node_state", &[("node", "gpu\n01"), ("state", "ready")])
        .await;
    assert_eq!(bad.status(), 400);
    // Reads are not attempts at a change.
    assert!(app.server_fn("list_nodes", &[]).await.status().is_success());

    let records = records_in(&file);
    let summary: Vec<(Outcome, &str)> = records
        .iter()
        .map(|r| (r.outcome, r.action.as_str()))
        .collect();
    assert_eq!(
        summary,
        [
            (Outcome::Sent, "set_node_state"),
            (Outcome::Done, "set_node_state"),
            (Outcome::Refused, "set_node_state"),
            (Outcome::Refused, "set_node_state"),
            (Outcome::Refused, "set_node_state"),
        ]
    );
    // The record of the change sent, before it was, and of how it ended.
    assert_eq!(records[0].attempt, records[1].attempt);
    let records = &records[1..];
    assert_eq!(records[0].actor, "ana");
    assert_eq!(records[0].user.as_deref(), Some("ana"));
    assert_eq!(records[0].target["node"], node.as_str());
    assert_eq!(records[0].target["state"], "cordoned");
    assert!(
        records[1].actor.starts_with("llmgw-console ("),
        "{records:?}"
    );
    assert_eq!(records[1].peer.as_deref(), Some("127.0.0.1"));
    assert!(
        records[1]
            .reason
            .as_deref()
            .unwrap_or_default()
            .contains("confirmation"),
        "{records:?}"
    );
    assert!(
        records[2]
            .reason
            .as_deref()
            .unwrap_or_default()
            .contains("another site"),
        "{records:?}"
    );
    // Refused before it reached the function: no body is kept.
    assert!(records[2].target.is_empty(), "{records:?}");
    // The forged line stays one JSON string, newline and all.
    assert_eq!(records[3].target["node"], "gpu\n01");

    // The page lists the same attempts, newest first.
    let page = app.parsed("/audit").await;
    let outcomes: Vec<String> = page
        .all("table.audit tbody tr")
        .into_iter()
        .map(|row| page.cell(row, "Outcome"))
        .collect();
    // The attempt sent and then done is one row, in operator words.
    let first_words: Vec<&str> = outcomes
        .iter()
        .map(|o| o.split(' ').next().unwrap_or_default())
        .collect();
    assert_eq!(
        first_words,
        ["refused", "refused", "refused", "done"],
        "{outcomes:?}"
    );
    assert!(
        outcomes
            .iter()
            .any(|o| o.starts_with("refused because ") && o.contains("another site")),
        "{outcomes:?}"
    );
    let actions: Vec<String> = page
        .all("table.audit tbody tr")
        .into_iter()
        .map(|row| page.cell(row, "Action"))
        .collect();
    assert_eq!(actions[3], "cordon", "{actions:?}");
    let _ = std::fs::remove_file(&file);
}

#[tokio::test]
async fn a_collection_is_recorded_with_every_path() {
    let app = TestApp::spawn().await;
    let p = crate::actions::preview(&app, "").await;
    let response = app
        .server_fn(
            "collect_weights",
            &[("node", ""), ("token", &p.token), ("back", "/weights")],
        )
        .await;
    assert!(response.status().is_success());
    let records = app.context_audit();
    let record = records.first().expect("a record");
    let paths = record.target["paths"].as_array().expect("every path");
    let expected: usize = p.orphans.iter().map(|o| o.paths.len()).sum();
    assert_eq!(paths.len(), expected);
    let first = &p.orphans[0];
    assert!(
        paths.contains(&serde_json::json!(format!(
            "{}:{}",
            first.node, first.paths[0]
        ))),
        "{paths:?}"
    );
    assert!(
        record.target["token"]
            .as_str()
            .unwrap_or_default()
            .ends_with('…'),
        "the token is shortened"
    );
}

#[tokio::test]
async fn a_call_of_a_function_this_build_lacks_is_no_attempt() {
    let audit = Arc::new(AuditLog::new(None).expect("opens"));
    let kept = audit.clone();
    let app = TestApp::spawn_with(move |cx| cx.audit = kept).await;
    // A read that a tab of an older build still calls, and a made-up name.
    for name in ["cluster_pulse", "no_such_function"] {
        let response = app.server_fn(name, &[]).await;
        assert!(
            response.status().is_client_error(),
            "{name}: {}",
            response.status()
        );
    }
    assert_eq!(audit.written(), 0, "neither is recorded");
    // A function of this build still is, refused or not.
    let unconfirmed = app
        .server_fn(
            "set_node_state",
            &[("node", "gpu-l40s-01"), ("state", "draining")],
        )
        .await;
    assert_eq!(unconfirmed.status(), 428);
    assert_eq!(audit.written(), 1);
}

#[tokio::test]
async fn the_audit_is_written_whatever_the_log_filter_says() {
    let console = Process::start(&["--demo", "--read-only", "--log", "warn"]).await;
    let refused = http()
        .post(format!("{}/api/set_node_state", console.url))
        .form(&[("node", "gpu-l40s-01"), ("state", "ready")])
        .send()
        .await
        .expect("answers");
    assert_eq!(refused.status(), 403);
    let log = console.stop();
    let line = log
        .lines()
        .find(|l| l.contains(r#""action":"set_node_state""#))
        .unwrap_or_else(|| panic!("no audit line in:\n{log}"));
    assert!(line.contains(r#""outcome":"refused""#), "{line}");
    assert!(line.contains("read-only"), "{line}");
    assert!(
        !log.contains(" INFO llmgw_console"),
        "the filter still applies elsewhere"
    );
}

#[test]
fn every_server_function_is_a_listed_read_or_a_listed_change() {
    // A change left out of `server_fns::calls::CHANGES` is still audited,
    // but with what its handler records only: list it with its fields.
    assert_eq!(
        app::server_fns::calls::unlisted(),
        Vec::<&str>::new(),
        "list these in app/src/server/attempts.rs (CHANGES) or server_fns::READS"
    );
}

#[tokio::test]
async fn a_flood_of_refusals_of_any_shape_cannot_fill_the_audit_or_the_journal() {
    use futures_util::{StreamExt, stream};
    use llmgw_journal::record::EventKind;
    use llmgw_journal::{EventFilter, JournalStore};

    let dir = crate::support::databases::TempDir::new("audit-flood");
    let file = dir.0.join("audit.jsonl");
    let data = dir.0.display().to_string();
    let audit_log = file.display().to_string();
    let console = Process::start(&[
        "--demo",
        "--read-only",
        "--data-dir",
        &data,
        "--audit-log",
        &audit_log,
        "--log",
        "warn",
    ])
    .await;
    let store = JournalStore::open(&crate::support::databases::sqlite_url(&dir.0))
        .await
        .expect("the console made the journal");
    let attempts = async || {
        let filter = EventFilter {
            kinds: vec![EventKind::Attempt],
            ..EventFilter::default()
        };
        store.read(&filter, 100_000).await.expect("reads").len()
    };
    let before = attempts().await;

    // 20,000 refused posts from 80 addresses, of four shapes: read-only
    // with a 190-character reason, a new Host name each time, another
    // site, and a node name with a newline in it, new each time (read-only
    // may be the reason given for the first and the last alike).
    let clients: Vec<reqwest::Client> = (0..80_u8)
        .map(|i| {
            reqwest::Client::builder()
                .local_address(std::net::IpAddr::from([127, 0, 2, 1 + i]))
                .build()
                .expect("a client")
        })
        .collect();
    let url = format!("{}/api/set_node_state", console.url);
    let reason = "r".repeat(190);
    const SENT: u64 = 20_000;
    stream::iter(0..SENT)
        .map(|i| {
            let client = &clients[(i % 80) as usize];
            let node = if i % 4 == 3 {
                format!("node\n{i}")
            } else {
                format!("node-{i}")
            };
            let mut form = vec![("node", node.as_str()), ("state", "cordoned")];
            let mut request = client.post(&url);
            match i % 4 {
                0 => form.extend([("confirm", "yes"), ("reason", reason.as_str())]),
                1 => request = request.header("host", format!("n{i}.example")),
                2 => request = request.header("sec-fetch-site", "cross-site"),
                _ => {}
            }
            let request = request.form(&form);
            async move {
                let answer = request.send().await.expect("answers");
                assert!(answer.status().is_client_error(), "{}", answer.status());
            }
        })
        .buffer_unordered(64)
        .collect::<Vec<()>>()
        .await;

    // What the flood wrote, once the counts of its last second are out.
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    let size = std::fs::metadata(&file).expect("the audit file").len();
    assert!(size <= 5 * 1024 * 1024, "the audit file is {size} bytes");
    let rows = crate::support::poll::until("the journal has the attempts", async || {
        let now = attempts().await;
        tokio::time::sleep(std::time::Duration::from_secs(2)).await;
        (attempts().await == now).then_some(now)
    })
    .await;
    assert!(rows - before <= 1_000, "{} journal rows", rows - before);

    // Every refusal is counted, those past the rate in summaries that say
    // so, within a minute.
    let counted = crate::support::poll::until_within(
        std::time::Duration::from_secs(90),
        "every refusal is counted",
        async || {
            let records = records_in(&file);
            let total: u64 = records
                .iter()
                .filter(|r| r.outcome == Outcome::Refused)
                .map(|r| r.times)
                .sum();
            (total >= SENT).then_some(records)
        },
    )
    .await;
    assert!(counted.iter().all(|r| r.times >= 1));
    let total: u64 = counted.iter().map(|r| r.times).sum();
    assert_eq!(total, SENT, "each refusal counted once");
    assert!(
        counted.iter().any(|r| r
            .reason
            .as_deref()
            .is_some_and(|r| r.contains("summarised"))),
        "the audit says when it summarises"
    );
    // A Host name is kept with its record, not in its reason.
    assert!(
        counted
            .iter()
            .all(|r| !r.reason.as_deref().unwrap_or_default().contains(".example"))
    );
}
