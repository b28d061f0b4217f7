//! What the journal costs llmgw, as the README says it: while no page is
//! open, each list once every `--record-seconds` (to within one refresh
//! period, the recorder's tick), and nothing else.

use std::time::Duration;

use crate::support::helpers::ScriptedUpstream;
use crate::support::process::Process;

#[tokio::test]
async fn recording_while_nobody_looks_asks_each_list_once_a_period() {
    let upstream = ScriptedUpstream::spawn(200, "application/json", b"[]".to_vec()).await;
    let _console = Process::start(&[
        "--admin-api",
        &upstream.address,
        "--refresh-seconds",
        "1",
        "--record-seconds",
        "2",
        "--log",
        "warn",
    ])
    .await;
    // Past the start's own reads.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let before = upstream.calls_by_path();
    tokio::time::sleep(Duration::from_secs(12)).await;
    let after = upstream.calls_by_path();
    let lists = [
        "/api/v1/nodes",
        "/api/v1/models",
        "/api/v1/replicas",
        "/api/v1/weights/orphans",
    ];
    for list in lists {
        let asked = after.get(list).copied().unwrap_or(0) - before.get(list).copied().unwrap_or(0);
        // Never more often than every 2 s (one more at the window's
        // edges); every 2 to 3 s, and a tick or two late on a busy machine.
        assert!(
            (2..=7).contains(&asked),
            "{list}: asked {asked} times in 12 s, every 2 to 3 s expected: {after:?}"
        );
    }
    let others: Vec<_> = after
        .iter()
        .filter(|(path, n)| !lists.contains(&path.as_str()) && before.get(*path) != Some(n))
        .collect();
    assert!(others.is_empty(), "asked besides the lists: {others:?}");
}
