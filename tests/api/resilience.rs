//! An admin API that is down, comes back, lies, or is not an admin API at all.

use std::net::SocketAddr;

use llmgw_console::simulator::Simulator;

use crate::support::helpers::{
    BASE, ScriptedUpstream, TestApp, fetch_page, http, simulator_list, spawn_console,
    spawn_simulator,
};
use crate::support::html::Page;

/// The error panel's text on `path` of `console`.
async fn error_panel(console: &str, path: &str) -> String {
    Page::parse(&fetch_page(console, path).await).text(".error-panel")
}

#[tokio::test]
async fn an_unreachable_admin_api_gives_a_whole_page_naming_the_address() {
    let console = spawn_console("127.0.0.1:1").await;
    let response = http()
        .get(format!("{console}{BASE}/nodes"))
        .send()
        .await
        .expect("answers");
    assert_eq!(response.status(), 200);
    let page = Page::parse(&response.text().await.expect("body"));
    assert!(page.has("header nav"), "a whole page, in its layout");
    let panel = page.text(".error-panel");
    assert!(panel.contains("cannot be reached"), "{panel}");
    assert!(
        panel.contains("http://127.0.0.1:1"),
        "names the address: {panel}"
    );
    assert!(
        panel.contains("admin_listen"),
        "gives the likely cause: {panel}"
    );
    assert!(!page.has("main p.empty"), "never an empty cluster");

    // A server function says the same, with a status a client can act on.
    let response = http()
        .post(format!("{console}/api/list_nodes"))
        .send()
        .await
        .expect("answers");
    assert_eq!(response.status(), 502);
    let error: app::error::ConsoleError = response.json().await.expect("the error, as JSON");
    assert!(
        matches!(
            error,
            app::error::ConsoleError::AdminApi(app::admin_api::AdminApiError::Unreachable { .. })
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn the_console_recovers_by_itself_when_the_admin_api_comes_back() {
    let port = crate::support::helpers::free_port();
    let console = spawn_console(&format!("127.0.0.1:{port}")).await;
    assert!(
        error_panel(&console, "/nodes")
            .await
            .contains("cannot be reached")
    );

    let simulator = Simulator::demo();
    let nodes = simulator.cluster().list_nodes(std::time::Instant::now());
    spawn_simulator(simulator, SocketAddr::from(([127, 0, 0, 1], port)));
    // The failure is shared for one refresh period (a second here); the
    // first request after it asks again.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let page = Page::parse(&fetch_page(&console, "/nodes").await);
    assert!(!page.has(".error-panel"));
    assert_eq!(page.row_keys("data-node").len(), nodes.len());
}

#[tokio::test]
async fn an_answer_that_is_not_the_contract_is_reported_not_shown_as_data() {
    let upstream = ScriptedUpstream::spawn(200, "text/html", b"<html>login</html>".to_vec()).await;
    let console = spawn_console(&upstream.address).await;
    let panel = error_panel(&console, "/nodes").await;
    assert!(panel.contains("cannot read"), "{panel}");
    assert!(panel.contains("not JSON"), "{panel}");
}

#[tokio::test]
async fn an_error_status_is_shown_with_the_servers_own_words() {
    let upstream = ScriptedUpstream::spawn(
        503,
        "application/json",
        br#"{"error":"control plane is electing a leader"}"#.to_vec(),
    )
    .await;
    let console = spawn_console(&upstream.address).await;
    let panel = error_panel(&console, "/nodes").await;
    assert!(
        panel.contains("503 Service Unavailable: control plane is electing a leader"),
        "{panel}"
    );
}

#[tokio::test]
async fn the_operator_named_by_the_proxy_is_sent_as_the_actor_of_a_change() {
    let upstream = ScriptedUpstream::spawn(200, "application/json", b"[]".to_vec()).await;
    let console = spawn_console(&upstream.address).await;
    let uncordon = |user: Option<&'static str>| {
        let mut request = http().post(format!("{console}/api/set_node_state")).form(&[
            ("node", "gpu-01"),
            ("state", "ready"),
            ("confirm", "yes"),
        ]);
        if let Some(user) = user {
            request = request.header("x-forwarded-user", user);
        }
        request.send()
    };
    uncordon(Some("ana@ops")).await.expect("answers");
    assert_eq!(
        upstream.last_header("x-llmgw-actor").as_deref(),
        Some("ana@ops")
    );
    uncordon(None).await.expect("answers");
    assert_eq!(
        upstream.last_header("x-llmgw-actor").as_deref(),
        Some("llmgw-console (127.0.0.1)"),
        "never blank without a proxy"
    );
    // Reads are shared by every viewer, so they go as the console itself.
    http()
        .get(format!("{console}{BASE}/nodes"))
        .header("x-forwarded-user", "ana@ops")
        .send()
        .await
        .expect("answers");
    assert_eq!(
        upstream.last_header("x-llmgw-actor").as_deref(),
        Some("llmgw-console")
    );
}

#[tokio::test]
async fn an_empty_cluster_says_so() {
    let upstream = ScriptedUpstream::spawn(200, "application/json", b"null".to_vec()).await;
    let console = spawn_console(&upstream.address).await;
    let page = Page::parse(&fetch_page(&console, "/nodes").await);
    assert_eq!(
        page.text("main p.empty"),
        "No nodes have registered with the control plane."
    );
}

#[tokio::test]
async fn hostile_requests_are_refused_without_harm() {
    let app = TestApp::spawn().await;
    // Past the 64 KiB limit, small enough to be written whole before the
    // refusal arrives (a larger one races the server closing the socket).
    let huge = "x".repeat(100 * 1024);
    let response = app
        .http
        .post(format!("{}/api/list_nodes", app.console))
        .body(huge)
        .send()
        .await
        .expect("answers");
    assert_eq!(response.status(), 413);
    // A new connection: the refused one is closed, its body unread.
    let response = http()
        .get(format!("{}/nodes", app.console))
        .send()
        .await
        .expect("answers");
    assert_eq!(response.headers()["x-content-type-options"], "nosniff");
    assert!(
        response.headers()["content-security-policy"]
            .to_str()
            .expect("ascii")
            .contains("frame-ancestors 'none'")
    );
}

#[tokio::test]
async fn readiness_follows_the_admin_api_and_credentials_are_never_shown() {
    let app = TestApp::spawn().await;
    let ready = app.get("/readyz").await;
    assert_eq!(ready.status(), 200);

    // Down: not ready, and the reason names the address without its password.
    let console = spawn_console("http://ops:s3cret@127.0.0.1:1").await;
    let response = http()
        .get(format!("{console}/readyz"))
        .send()
        .await
        .expect("answers");
    assert_eq!(response.status(), 503);
    let reason = response.text().await.expect("body");
    assert!(reason.contains("not ready"), "{reason}");
    assert!(reason.contains("http://***@127.0.0.1:1"), "{reason}");
    assert!(!reason.contains("s3cret"), "{reason}");
    let page = fetch_page(&console, "/nodes").await;
    assert!(page.contains("127.0.0.1:1"));
    assert!(!page.contains("s3cret"), "no page shows the password");
    assert!(!page.contains("ops:"), "nor the user name");
}

#[tokio::test]
async fn a_page_its_viewer_leaves_halfway_is_finished_without_a_panic() {
    let simulator = crate::support::process::Process::simulator().await;
    let console = crate::support::process::Process::start(&[
        "--admin-api",
        &simulator.url,
        "--refresh-seconds",
        "1",
        "--log",
        "warn",
    ])
    .await;
    // Every answer of the admin API comes four seconds late: each render
    // below is waiting for its data when its viewer goes. The node page goes
    // first: once the lists are in, it renders at once, with whatever
    // rejections have been read. Four seconds leave room for a loaded
    // machine to be slow between the six requests.
    let slow = http()
        .post(format!("{}/_simulator/fault", simulator.url))
        .json(&serde_json::json!({"fault": "slow", "delay_seconds": 4, "for_seconds": 6}))
        .send()
        .await
        .expect("the simulator answers");
    assert!(slow.status().is_success());
    // The journal read the lists as the console started: past one period
    // they are old, and a page asks again.
    tokio::time::sleep(std::time::Duration::from_millis(1_200)).await;
    let impatient = reqwest::Client::builder()
        .timeout(std::time::Duration::from_millis(200))
        .build()
        .expect("a client");
    for path in [
        "/nodes/gpu-h100-01",
        "/",
        "/nodes",
        "/models",
        "/replicas",
        "/weights",
    ] {
        let left = impatient.get(format!("{}{path}", console.url)).send().await;
        assert!(left.is_err(), "{path} answered before its data came");
    }
    // The renders finish once their data comes.
    tokio::time::sleep(std::time::Duration::from_secs(6)).await;
    let page = http()
        .get(format!("{}/nodes", console.url))
        .send()
        .await
        .expect("answers");
    assert_eq!(page.status(), 200);
    let log = console.stop();
    assert!(!log.contains("panicked"), "the console panicked:\n{log}");
}

/// `field` of every item the simulator at `url` lists under `list`.
async fn field_of_each(url: &str, list: &str, field: &str) -> Vec<String> {
    simulator_list(url, list)
        .await
        .iter()
        .map(|item| item[field].as_str().expect("a string").to_string())
        .collect()
}

#[tokio::test]
async fn viewers_at_once_get_every_page_whole_and_never_a_panic() {
    let simulator =
        crate::support::process::Process::simulator_of(&["--nodes", "500", "--models", "100"])
            .await;
    let console = crate::support::process::Process::start(&[
        "--admin-api",
        &simulator.url,
        "--log",
        "warn",
        "--refresh-seconds",
        "1",
    ])
    .await;
    let nodes = field_of_each(&simulator.url, "nodes", "id").await;
    let models = field_of_each(&simulator.url, "models", "name").await;
    let id = |i: usize| nodes[i % nodes.len()].clone();
    let model = |i: usize| app::urls::placement(&models[i % models.len()]);
    // Ten viewers at once, each through every kind of page a few times,
    // while the lists are asked again every second: what a render keeps
    // of its page must outlive every part of it, whatever finishes first.
    let viewers = (0..10).map(|k| {
        let console = console.url.clone();
        let paths: Vec<String> = (0..45)
            .map(|i| match i % 9 {
                0 => app::urls::node(&id(k * 37 + i)),
                1 => model(k * 11 + i),
                2 => "/".to_string(),
                3 => "/wall".to_string(),
                4 => "/nodes".to_string(),
                5 => "/models".to_string(),
                6 => "/replicas".to_string(),
                7 => "/weights".to_string(),
                _ => "/audit".to_string(),
            })
            .collect();
        tokio::spawn(async move {
            let mut failed = Vec::new();
            for path in paths {
                // Read to its end: a render that fails after the head is
                // sent still answers 200, and then cuts the page short.
                let answer = match http().get(format!("{console}{path}")).send().await {
                    Ok(r) => {
                        let status = r.status().as_u16();
                        r.text().await.map(|body| (status, body))
                    }
                    Err(e) => Err(e),
                };
                match answer {
                    Ok((200, body)) if body.contains("</html>") => {}
                    Ok((status, body)) => {
                        failed.push(format!("{path}: {status}, {} bytes", body.len()))
                    }
                    Err(e) => failed.push(format!("{path}: {e}")),
                }
            }
            failed
        })
    });
    let mut failed = Vec::new();
    for viewer in viewers.collect::<Vec<_>>() {
        failed.extend(viewer.await.expect("a viewer"));
    }
    let log = console.stop();
    assert!(
        failed.is_empty(),
        "{} pages failed: {failed:?}",
        failed.len()
    );
    assert!(!log.contains("panicked"), "the console panicked:\n{log}");
}
