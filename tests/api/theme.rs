//! The theme: chosen by a link that keeps it in a cookie, and rendered by
//! the server from that cookie, so the first paint is already right.

use app::urls::encode_component as urlencode;

use crate::support::helpers::TestApp;
use crate::support::html::Page;

async fn switch(app: &TestApp, path: &str) -> (u16, String, String) {
    let response = app.get(path).await;
    let header = |name| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    };
    (
        response.status().as_u16(),
        header("location"),
        header("set-cookie"),
    )
}

#[tokio::test]
async fn the_switch_keeps_the_choice_and_comes_back_to_the_view() {
    let app = TestApp::spawn().await;
    let (status, location, cookie) = switch(&app, "/theme/dark?back=%2Fnodes%3Fq%3Dh100").await;
    assert_eq!(status, 303);
    assert_eq!(location, "/nodes?q=h100");
    assert!(cookie.starts_with("llmgw_theme=dark;"), "{cookie}");
    assert!(cookie.contains("Max-Age=31536000"), "{cookie}");

    let (_, _, cookie) = switch(&app, "/theme/auto?back=/models").await;
    assert!(
        cookie.contains("Max-Age=0"),
        "auto forgets the choice: {cookie}"
    );
}

#[tokio::test]
async fn the_switch_never_sends_the_browser_to_another_site() {
    let app = TestApp::spawn().await;
    for back in [
        "//evil.example/",
        "https://evil.example/",
        "/%5Cevil.example",
        "nodes",
    ] {
        let (status, location, _) = switch(&app, &format!("/theme/light?back={back}")).await;
        assert_eq!((status, location.as_str()), (303, "/"), "back={back}");
    }
    let (status, _, cookie) = switch(&app, "/theme/purple?back=/").await;
    assert_eq!(status, 404);
    assert!(cookie.is_empty(), "an unknown theme sets nothing");
}

#[tokio::test]
async fn every_page_is_rendered_in_the_viewers_theme() {
    let app = TestApp::spawn().await;
    for path in ["/", "/nodes", "/models", "/weights", "/wall/setup"] {
        for (cookie, expected) in [
            ("llmgw_theme=dark", Some("dark")),
            ("other=1; llmgw_theme=light", Some("light")),
            ("llmgw_theme=neon", None),
            ("", None),
        ] {
            let response = app.get_with(path, &[("cookie", cookie)]).await;
            assert_eq!(response.status(), 200, "{path}");
            let html = response.text().await.expect("body");
            let open_tag = &html[html.find("<html").expect("an html tag")..];
            let open_tag = &open_tag[..open_tag.find('>').expect("closed")];
            match expected {
                Some(theme) => assert!(
                    open_tag.contains(&format!("data-theme=\"{theme}\"")),
                    "{path} with {cookie:?}: {open_tag}"
                ),
                None => assert!(!open_tag.contains("data-theme"), "{path}: {open_tag}"),
            }
            // The switch names the theme in force, and comes back here.
            let page = Page::parse(&html);
            let word = expected.unwrap_or("auto");
            assert_eq!(
                page.text("header a.theme"),
                format!("Theme: {word}"),
                "{path}"
            );
            let back = urlencode(&crate::support::helpers::scoped(path));
            assert!(
                page.hrefs("header a.theme")[0].ends_with(&format!("?back={back}")),
                "{path}: {:?}",
                page.hrefs("header a.theme")
            );
        }
    }
}
