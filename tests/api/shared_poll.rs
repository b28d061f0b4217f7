//! One poll for everyone: however many viewers load pages at once, the
//! admin API is asked for each list at most once per refresh period, and
//! not at all while nobody looks.

use std::time::Duration;

use futures_util::future::join_all;

use crate::support::helpers::{ScriptedUpstream, http, spawn_console};

async fn viewers(console: &str, path: &str, n: usize) {
    let client = http();
    let loads = (0..n).map(|_| {
        let client = client.clone();
        let url = format!("{console}{}{path}", crate::support::helpers::BASE);
        async move {
            let r = client.get(url).send().await.expect("answers");
            assert_eq!(r.status(), 200);
        }
    });
    join_all(loads).await;
}

#[tokio::test]
async fn a_hundred_viewers_cost_one_call_per_list_per_period() {
    let upstream = ScriptedUpstream::spawn(200, "application/json", b"[]".to_vec()).await;
    let console = spawn_console(&upstream.address).await;
    viewers(&console, "/", 100).await;
    viewers(&console, "/nodes", 100).await;
    let lists = [
        "/api/v1/nodes",
        "/api/v1/models",
        "/api/v1/replicas",
        "/api/v1/weights/orphans",
    ];
    let first = upstream.calls_by_path();
    for list in lists {
        assert_eq!(first.get(list), Some(&1), "{list}: {first:?}");
    }
    // Nobody looks for two periods: nothing is asked.
    tokio::time::sleep(Duration::from_millis(2200)).await;
    assert_eq!(upstream.calls_by_path(), first, "no viewer, no call");
    // The next period's hundred viewers: one more call per list.
    viewers(&console, "/", 100).await;
    let second = upstream.calls_by_path();
    for list in lists {
        assert_eq!(second.get(list), Some(&2), "{list}: {second:?}");
    }
}
