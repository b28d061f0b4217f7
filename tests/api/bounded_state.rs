//! Nothing is kept per request: confirmations and receipts are signed, so
//! memory stays flat however many previews and actions arrive, and consoles
//! that share a key behave as one behind a load balancer. Nor per viewer:
//! a crowd loading a page at once waits its turn instead of each holding a
//! render.

use app::server::Confirmations;
use app::server::confirmations::DEFAULT_TTL;
use app::server::signing::Signer;
use futures_util::{StreamExt, stream};

use llmgw_console::startup::console_context;

use crate::actions::preview;
use crate::support::helpers::{TestApp, http, settings, spawn_console_from};
use crate::support::process::Process;

fn keyed(cx: &mut app::server::ConsoleContext, key: u8) {
    cx.signer = Signer::new(&[key; 32]).expect("key");
    cx.confirmations = Confirmations::new(cx.signer.clone(), DEFAULT_TTL);
}

#[tokio::test]
async fn two_consoles_sharing_a_secret_behave_as_one() {
    let a = TestApp::spawn_with(|cx| keyed(cx, 7)).await;
    // A second console in front of the same admin API with the same key,
    // and a third with another.
    let beside = |key| {
        let mut cx = console_context(&settings(), &a.admin_api).expect("valid settings");
        keyed(&mut cx, key);
        spawn_console_from(cx)
    };
    let (b, other) = (beside(7), beside(8));

    // Preview on A...
    let p = preview(&a, "").await;
    // ...a console with another key does not believe it...
    let refused = http()
        .post(format!("{other}/api/collect_weights"))
        .form(&[("node", ""), ("token", &p.token), ("back", "/weights")])
        .send()
        .await
        .expect("answers");
    assert_eq!(refused.status(), 409);
    // ...confirm on B...
    let done = http()
        .post(format!("{b}/api/collect_weights"))
        .form(&[("node", ""), ("token", &p.token), ("back", "/weights")])
        .send()
        .await
        .expect("answers");
    assert!(done.status().is_success(), "{}", done.status());
    let location = done.headers()["location"]
        .to_str()
        .expect("ascii")
        .to_string();
    // ...and the receipt shows on A.
    let page = a.parsed(&location).await;
    assert_eq!(
        page.text("section.receipt h2"),
        "Collect orphaned weights on every node"
    );
    assert_eq!(a.simulator.audit().len(), 1, "one collection reached llmgw");
    // The other key's console shows no receipt for it.
    let elsewhere = crate::support::helpers::fetch_page(&other, &location).await;
    assert!(
        !elsewhere.contains("class=\"receipt"),
        "a receipt it never signed"
    );
}

#[tokio::test]
async fn a_receipt_cannot_be_forged_or_edited() {
    let app = TestApp::spawn().await;
    let node = app.lists().nodes[0].id.clone();
    let done = app
        .server_fn(
            "set_node_state",
            &[
                ("node", &node),
                ("state", "ready"),
                ("confirm", "yes"),
                ("back", "/nodes"),
            ],
        )
        .await;
    let location = done.headers()["location"]
        .to_str()
        .expect("ascii")
        .to_string();
    assert!(app.parsed(&location).await.has("section.receipt"));
    let receipt = location.split("receipt=").nth(1).expect("a receipt");
    let (payload, tag) = receipt.split_once('.').expect("signed");
    let mut edited = payload.to_string();
    edited.replace_range(0..1, if edited.starts_with('e') { "f" } else { "e" });
    for forged in [
        format!("{edited}.{tag}"),
        payload.to_string(),
        "made-up".to_string(),
    ] {
        let page = app.parsed(&format!("/nodes?receipt={forged}")).await;
        assert!(!page.has("section.receipt"), "{forged}");
    }
}

/// Memory after `n` more previews and uncordons, sent eight at a time.
async fn after_requests(console: &Process, n: usize) -> u64 {
    let http = http();
    stream::iter(0..n)
        .map(|i| {
            let http = http.clone();
            let url = console.url.clone();
            async move {
                let (name, form): (&str, Vec<(&str, &str)>) = if i % 2 == 0 {
                    ("preview_collect", vec![("node", "")])
                } else {
                    (
                        "set_node_state",
                        vec![
                            ("node", "gpu-l40s-01"),
                            ("state", "ready"),
                            ("confirm", "yes"),
                        ],
                    )
                };
                let r = http
                    .post(format!("{url}/api/{name}"))
                    .form(&form)
                    .send()
                    .await
                    .expect("answers");
                assert!(r.status().is_success(), "{name}: {}", r.status());
            }
        })
        .buffer_unordered(8)
        .collect::<Vec<()>>()
        .await;
    console.rss_kib()
}

#[tokio::test]
async fn memory_stays_flat_under_ten_thousand_previews_and_actions() {
    // The admin API in its own process, so that its own growth (it records
    // every change) is not counted as the console's.
    let simulator = Process::simulator().await;
    let console = Process::start(&["--admin-api", &simulator.url, "--log", "warn"]).await;
    let warm = after_requests(&console, 1_000).await;
    let after = after_requests(&console, 10_000).await;
    let grown = after.saturating_sub(warm);
    // A kept preview holds the path set of the demo cluster's orphans: ten
    // thousand of them would be several MiB; signed ones are nothing.
    assert!(
        grown < 4 * 1024,
        "resident memory grew by {grown} KiB (from {warm} KiB) over 10,000 requests"
    );
}

#[tokio::test]
async fn a_crowd_of_viewers_costs_no_more_memory_than_a_few() {
    let simulator =
        Process::simulator_of(&["--nodes", "1000", "--models", "200", "--seed", "7"]).await;
    let console = Process::start(&["--admin-api", &simulator.url, "--log", "warn"]).await;
    let http = http();
    let load = |http: reqwest::Client| {
        let page = format!("{}/nodes", console.url);
        async move {
            let r = http.get(page).send().await.expect("answers");
            assert!(r.status().is_success(), "/nodes: {}", r.status());
            r.bytes().await.expect("a whole page");
        }
    };
    for _ in 0..8 {
        load(http.clone()).await;
    }
    let warm = console.rss_kib();
    for _ in 0..3 {
        futures_util::future::join_all((0..100).map(|_| load(http.clone()))).await;
    }
    let grown = console.rss_kib().saturating_sub(warm);
    // Each render of this page holds about 260 KiB until it is sent; a
    // hundred at once left the allocator holding about 28 MiB. In turns, a
    // few at a time, what grows is the crowd's connections.
    assert!(
        grown < 16 * 1024,
        "resident memory grew by {grown} KiB (from {warm} KiB) after 3 x 100 concurrent loads"
    );
}

/// The largest peak of `console`'s resident memory while `until` runs,
/// sampled every 100 ms.
async fn peak_rss_while(console: &Process, until: impl Future<Output = ()>) -> u64 {
    let mut until = std::pin::pin!(until);
    let mut peak = console.rss_kib();
    loop {
        tokio::select! {
            () = &mut until => return peak.max(console.rss_kib()),
            () = tokio::time::sleep(std::time::Duration::from_millis(100)) => {
                peak = peak.max(console.rss_kib());
            }
        }
    }
}

#[tokio::test]
async fn slow_readers_of_the_largest_answer_hold_no_more_than_the_send_budget() {
    use tokio::io::AsyncWriteExt;
    let simulator =
        Process::simulator_of(&["--nodes", "20000", "--models", "200", "--seed", "7"]).await;
    let console = Process::start(&["--admin-api", &simulator.url, "--log", "warn"]).await;
    let url = format!("{}/nodes?format=json", console.url);
    let whole = http().get(&url).send().await.expect("answers");
    assert!(whole.status().is_success(), "{}", whole.status());
    let size = whole.bytes().await.expect("whole").len();
    assert!(
        size > 2_000_000,
        "the node list at 20,000 nodes is {size} bytes"
    );
    let idle = console.rss_kib();

    // 200 clients from 67 addresses ask for it and never read a byte.
    let addr: std::net::SocketAddr = console
        .root
        .trim_start_matches("http://")
        .parse()
        .expect("an address");
    let path = url.trim_start_matches(&console.root);
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n");
    let mut held = Vec::new();
    let peak = peak_rss_while(&console, async {
        for i in 0..200_u32 {
            let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
            socket.set_recv_buffer_size(4096).expect("a small buffer");
            let from = std::net::Ipv4Addr::new(127, 0, 1 + (i / 3) as u8, 1 + (i % 3) as u8);
            socket.bind((from, 0).into()).expect("bound");
            let mut stream = socket.connect(addr).await.expect("connects");
            stream.write_all(request.as_bytes()).await.expect("asked");
            held.push(stream);
        }
        // Every answer made or refused: none waits for a turn, and the
        // bytes waiting to be sent stay within the budget.
        let waiting = "llmgw_console_turns_waiting{kind=\"render\"}";
        crate::support::poll::until("every answer is made", async || {
            (crate::support::process::metric(&console, waiting).await == Some(0.0)).then_some(())
        })
        .await;
        let sending = crate::support::process::metric(&console, "llmgw_console_sending_bytes")
            .await
            .expect("on /metrics");
        assert!(
            sending <= 64.0 * 1024.0 * 1024.0,
            "{sending} bytes wait for slow readers"
        );
    })
    .await;
    let grown = peak.saturating_sub(idle);
    assert!(
        grown <= 150 * 1024,
        "200 slow readers of {size} bytes: resident memory grew by {grown} KiB (from {idle} KiB)"
    );
    // The console still answers everyone else.
    let health = tokio::time::timeout(
        std::time::Duration::from_secs(1),
        http().get(format!("{}/healthz", console.root)).send(),
    )
    .await;
    assert!(
        health.is_ok_and(|r| r.is_ok_and(|r| r.status() == 200)),
        "/healthz within a second"
    );
    drop(held);
}
