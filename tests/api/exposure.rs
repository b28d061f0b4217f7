//! Safe to expose: another web page cannot act through the console, a name
//! the console does not answer to is refused, the user header is believed
//! only from a trusted proxy, and what a request carries is checked before
//! anything is sent upstream.

use app::error::ConsoleError;

use crate::support::helpers::TestApp;

/// A cordon of `node`, as a form would post it, with `headers` added.
async fn cordon(app: &TestApp, node: &str, headers: &[(&str, &str)]) -> reqwest::Response {
    let mut with_html = vec![("accept", "text/html")];
    with_html.extend_from_slice(headers);
    app.post_with(
        "set_node_state",
        &[
            ("node", node),
            ("state", "cordoned"),
            ("confirm", "yes"),
            ("back", "/nodes"),
        ],
        &with_html,
    )
    .await
}

fn ready_node(app: &TestApp) -> String {
    app.lists()
        .nodes
        .into_iter()
        .find(|n| n.state == app::admin_api::types::NodeState::Ready)
        .expect("a ready node")
        .id
}

#[tokio::test]
async fn requests_another_site_sends_change_nothing() {
    let app = TestApp::spawn().await;
    let node = ready_node(&app);
    for headers in [
        // An auto-submitting form on another site, in a current browser.
        vec![
            ("origin", "http://evil.example"),
            ("sec-fetch-site", "cross-site"),
        ],
        // The same in a browser that sends only Origin.
        vec![("origin", "http://evil.example")],
        // Only Sec-Fetch-Site, from a sibling site.
        vec![("sec-fetch-site", "same-site")],
    ] {
        let response = cordon(&app, &node, &headers).await;
        assert_eq!(response.status(), 403, "{headers:?}");
    }
    // A form with enctype=text/plain needs no preflight from any site.
    let response = app
        .http
        .post(format!("{}/api/set_node_state", app.console))
        .header("content-type", "text/plain")
        .body(format!("node={node}&state=cordoned&confirm=yes"))
        .send()
        .await
        .expect("console answers");
    assert_eq!(response.status(), 403);
    assert!(
        app.simulator.audit().is_empty(),
        "nothing reached the admin API"
    );
}

#[tokio::test]
async fn a_form_from_the_consoles_own_page_still_works_without_javascript() {
    let app = TestApp::spawn().await;
    let node = ready_node(&app);
    let response = cordon(
        &app,
        &node,
        &[("origin", &app.console), ("sec-fetch-site", "same-origin")],
    )
    .await;
    assert_eq!(response.status(), 302);
    let audit = app.simulator.audit();
    assert_eq!(audit.len(), 1, "{audit:?}");
    assert!(audit[0].action.contains(&node), "{audit:?}");
}

/// The status of the nodes page asked for by the name `host`.
async fn nodes_page_as(app: &TestApp, host: &str) -> u16 {
    app.get_with("/nodes", &[("host", host)])
        .await
        .status()
        .as_u16()
}

#[tokio::test]
async fn a_name_the_console_does_not_answer_to_is_refused() {
    let app = TestApp::spawn().await;
    assert_eq!(
        nodes_page_as(&app, "evil.example").await,
        421,
        "pages included"
    );
    let node = ready_node(&app);
    let change = cordon(&app, &node, &[("host", "evil.example:8080")]).await;
    assert_eq!(change.status(), 421);
    assert!(app.simulator.audit().is_empty());
    assert_eq!(nodes_page_as(&app, "localhost").await, 200);
}

#[tokio::test]
async fn the_user_header_is_believed_only_from_a_trusted_proxy() {
    let trusting = TestApp::spawn().await;
    let node = ready_node(&trusting);
    assert_eq!(
        cordon(&trusting, &node, &[("x-forwarded-user", "ana@ops")])
            .await
            .status(),
        302
    );
    assert_eq!(trusting.simulator.audit()[0].actor, "ana@ops");

    let wary =
        TestApp::spawn_with(|cx| cx.trusted_proxies = vec!["10.0.0.0/8".parse().expect("cidr")])
            .await;
    assert_eq!(
        cordon(&wary, &node, &[("x-forwarded-user", "ana@ops")])
            .await
            .status(),
        302
    );
    assert_eq!(wary.simulator.audit()[0].actor, "llmgw-console (127.0.0.1)");
}

#[tokio::test]
async fn a_console_that_requires_a_user_refuses_an_anonymous_change() {
    let app = TestApp::spawn_with(|cx| cx.require_user = true).await;
    let node = ready_node(&app);
    let response = app
        .server_fn("set_node_state", &[("node", &node), ("state", "ready")])
        .await;
    assert_eq!(response.status(), 401);
    let error: ConsoleError = response.json().await.expect("the error");
    assert_eq!(error, ConsoleError::UserRequired);
    assert!(app.simulator.audit().is_empty());
    let named = app
        .post_with(
            "set_node_state",
            &[
                ("node", node.as_str()),
                ("state", "ready"),
                ("confirm", "yes"),
            ],
            &[("x-forwarded-user", "ana@ops")],
        )
        .await;
    assert!(named.status().is_success(), "{}", named.status());
    assert_eq!(app.simulator.audit()[0].actor, "ana@ops");
}

#[tokio::test]
async fn control_characters_are_refused_before_anything_is_sent() {
    let app = TestApp::spawn().await;
    let node = ready_node(&app);
    // A newline in the node id would forge a log line; a tab would act on
    // one node while showing another.
    for bad in [format!("{node}\nforged"), format!("{node}\t")] {
        let response = app
            .server_fn(
                "set_node_state",
                &[("node", bad.as_str()), ("state", "ready")],
            )
            .await;
        assert_eq!(response.status(), 400, "{bad:?}");
        let error: ConsoleError = response.json().await.expect("the error");
        assert!(matches!(error, ConsoleError::BadRequest(_)), "{error:?}");
    }
    // These made the redirect panic after the change was made, and made an
    // open redirect (`/\t/evil.example` reads as `//evil.example`).
    for back in ["/\n", "/\t/evil.example"] {
        let response = app
            .post_form_without_js(
                "set_node_state",
                &[
                    ("node", node.as_str()),
                    ("state", "cordoned"),
                    ("confirm", "yes"),
                    ("back", back),
                ],
            )
            .await;
        assert!(
            !response.status().is_server_error(),
            "{back:?}: {}",
            response.status()
        );
        let location = response
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        assert!(!location.contains("evil.example"), "{location}");
    }
    let placement = app
        .server_fn("explain_placement", &[("model", "qwen\u{0}")])
        .await;
    assert_eq!(placement.status(), 400);
    assert!(
        app.simulator.audit().is_empty(),
        "nothing reached the admin API"
    );
}

#[tokio::test]
async fn a_pages_inline_scripts_run_only_by_the_policys_nonce() {
    let app = TestApp::spawn().await;
    let mut nonces = Vec::new();
    for path in ["/nodes", "/weights", "/audit"] {
        let response = app.get(path).await;
        let policy = response.headers()["content-security-policy"]
            .to_str()
            .expect("ascii")
            .to_string();
        let scripts = policy
            .split(';')
            .map(str::trim)
            .find(|d| d.starts_with("script-src"))
            .expect("a script policy")
            .to_string();
        assert!(!scripts.contains("unsafe-inline"), "{policy}");
        let nonce = scripts
            .split_whitespace()
            .find_map(|s| s.strip_prefix("'nonce-"))
            .and_then(|s| s.strip_suffix('\''))
            .unwrap_or_else(|| panic!("no nonce in {policy}"))
            .to_string();
        let page = crate::support::html::Page::parse(&response.text().await.expect("body"));
        let inline = page.all("script:not([src])");
        assert!(
            !inline.is_empty(),
            "{path} starts its islands with inline scripts"
        );
        for script in inline {
            assert_eq!(script.value().attr("nonce"), Some(nonce.as_str()), "{path}");
        }
        nonces.push(nonce);
    }
    nonces.dedup();
    assert_eq!(nonces.len(), 3, "a new nonce for every page");
}

#[tokio::test]
async fn the_page_header_says_who_the_console_takes_you_for() {
    let app = TestApp::spawn().await;
    let named = app.get_with("/nodes", &[("x-forwarded-user", "ana")]).await;
    let page = crate::support::html::Page::parse(&named.text().await.expect("body"));
    assert_eq!(page.text("header .actor"), "ana");
    let page = app.parsed("/nodes").await;
    assert_eq!(page.text("header .actor"), "llmgw-console (127.0.0.1)");
}
