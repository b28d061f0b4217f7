//! The embedded site. These need the site built by scripts/build.mjs first
//! (`make test` does that before running them).

use crate::support::helpers::TestApp;

const WASM: &str = "/pkg/llmgw-console.wasm";

async fn wasm_with(app: &TestApp, accept: &str) -> reqwest::Response {
    let response = app.get_with(WASM, &[("accept-encoding", accept)]).await;
    assert_eq!(
        response.status(),
        200,
        "{WASM} is not embedded; build the site first (make build)"
    );
    response
}

#[tokio::test]
async fn wasm_is_served_precompressed_by_accept_encoding() {
    let app = TestApp::spawn().await;
    for (accept, encoding) in [
        ("br", Some("br")),
        ("gzip", Some("gzip")),
        ("identity", None),
    ] {
        let response = wasm_with(&app, accept).await;
        let headers = response.headers();
        assert_eq!(headers["content-type"], "application/wasm");
        assert_eq!(
            headers
                .get("content-encoding")
                .and_then(|v| v.to_str().ok()),
            encoding,
            "for Accept-Encoding: {accept}"
        );
        assert_eq!(headers["vary"], "Accept-Encoding");
        assert!(headers.contains_key("etag"));
        // Whichever copy is embedded, what arrives is the module.
        let body = response.bytes().await.expect("body");
        let plain = match encoding {
            Some("gzip") => {
                use std::io::Read;
                let mut out = Vec::new();
                flate2::read::GzDecoder::new(&body[..])
                    .read_to_end(&mut out)
                    .expect("gzip");
                out
            }
            Some(_) => continue,
            None => body.to_vec(),
        };
        assert_eq!(&plain[..4], b"\0asm", "for Accept-Encoding: {accept}");
    }
}

#[tokio::test]
async fn a_matching_etag_gets_304_and_a_stale_one_the_file() {
    let app = TestApp::spawn().await;
    let etag = wasm_with(&app, "br").await.headers()["etag"].clone();
    let tag = etag.to_str().expect("ascii").to_string();
    let not_modified = app
        .get_with(WASM, &[("accept-encoding", "br"), ("if-none-match", &tag)])
        .await;
    assert_eq!(not_modified.status(), 304);
    assert_eq!(not_modified.headers()["etag"], etag);
    let changed = app
        .get_with(
            WASM,
            &[("accept-encoding", "br"), ("if-none-match", "\"other\"")],
        )
        .await;
    assert_eq!(changed.status(), 200);
}

#[tokio::test]
async fn css_js_and_public_files_have_their_types() {
    let app = TestApp::spawn().await;
    for (path, mime) in [
        ("/pkg/llmgw-console.js", "text/javascript"),
        ("/pkg/llmgw-console.css", "text/css"),
        ("/favicon.svg", "image/svg+xml"),
    ] {
        let response = app.get(path).await;
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(response.headers()["content-type"], mime, "{path}");
    }
}

#[tokio::test]
async fn the_page_names_its_code_by_the_build_which_is_kept_for_good() {
    let app = TestApp::spawn().await;
    let html = app.page("/nodes").await;
    let build = llmgw_console::assets::build_id();
    assert!(!build.is_empty());
    for file in [
        "llmgw-console.js",
        "llmgw-console.wasm",
        "llmgw-console.css",
    ] {
        let named = format!("/pkg/{build}/{file}");
        assert!(html.contains(&named), "the page names {named}");
        let response = app.get(&named).await;
        assert_kept_for_good(&response, &named);
        // Without the build, or under another one, the name may mean other
        // bytes: served, but revalidated.
        for other in [format!("/pkg/{file}"), format!("/pkg/0123abcd/{file}")] {
            let response = app.get(&other).await;
            assert_eq!(response.status(), 200, "{other}");
            assert_eq!(response.headers()["cache-control"], "no-cache", "{other}");
        }
    }
}

/// Served, and cached by the browser for a year without asking again.
fn assert_kept_for_good(response: &reqwest::Response, named: &str) {
    assert_eq!(response.status(), 200, "{named}");
    assert_eq!(
        response.headers()["cache-control"],
        "public, max-age=31536000, immutable",
        "{named}"
    );
}
