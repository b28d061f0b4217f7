//! Refuses what another web page asks the console to do. A page on any site
//! an operator has open can make the browser post a form to the console,
//! cookies and all; a console that drains nodes must tell those requests
//! from its own pages' and refuse them, for every server function there is
//! or will be, so this is a layer over the whole router, not a check each
//! function remembers to make.
//!
//! The rule is Go 1.25's `CrossOriginProtection`: a browser says where a
//! request comes from in `Sec-Fetch-Site` (trusted where present: only
//! `same-origin`, or `none` for what the user typed, passes); an older
//! browser sends `Origin`, which must name this host; a request with neither
//! is not from a browser (curl, a script, a test) and is let through, as it
//! cannot be forged by a page. No token is needed, so forms keep working with
//! JavaScript off. The request pipeline applies it to every request.

use axum::http::{HeaderMap, Method, header};

/// Why a request was refused, in the words the refusal and the log use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CrossOrigin {
    /// `Sec-Fetch-Site` says another site (or a sibling subdomain) sent it.
    FetchSite(String),
    /// `Origin` names another origin than the host the request was sent to.
    Origin(String),
    /// A body type that a cross-site HTML form can send without the browser
    /// asking first (`text/plain`), which no page of this console sends.
    ContentType(String),
}

impl std::fmt::Display for CrossOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::FetchSite(site) => write!(
                f,
                "the browser says another site sent it (Sec-Fetch-Site: {site})"
            ),
            Self::Origin(origin) => write!(f, "it was sent from another origin ({origin})"),
            Self::ContentType(kind) => write!(
                f,
                "its body type ({kind}) is not one this console's pages send"
            ),
        }
    }
}

/// Whether `method` only reads: only these may come from anywhere.
fn is_safe(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// The verdict on a request that may change something.
pub fn check(method: &Method, headers: &HeaderMap) -> Result<(), CrossOrigin> {
    if is_safe(method) {
        return Ok(());
    }
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(kind) = text(header::CONTENT_TYPE.as_str()) {
        let essence = kind
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if essence == "text/plain" {
            return Err(CrossOrigin::ContentType(essence));
        }
    }
    match text("sec-fetch-site") {
        Some("same-origin" | "none") => return Ok(()),
        Some(other) => return Err(CrossOrigin::FetchSite(other.to_string())),
        None => {}
    }
    let Some(origin) = text(header::ORIGIN.as_str()) else {
        return Ok(());
    };
    let host = text(header::HOST.as_str()).unwrap_or("");
    let origin_host = origin.split_once("://").map(|(_, rest)| rest).unwrap_or("");
    if !host.is_empty() && origin_host.eq_ignore_ascii_case(host) {
        Ok(())
    } else {
        Err(CrossOrigin::Origin(origin.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(*k, v.parse().expect("header value"));
        }
        map
    }

    #[test]
    fn a_browser_is_believed_about_where_a_request_comes_from() {
        let post = Method::POST;
        assert!(check(&post, &headers(&[("sec-fetch-site", "same-origin")])).is_ok());
        assert!(check(&post, &headers(&[("sec-fetch-site", "none")])).is_ok());
        for site in ["cross-site", "same-site"] {
            assert_eq!(
                check(
                    &post,
                    &headers(&[
                        ("sec-fetch-site", site),
                        ("origin", "http://c:8080"),
                        ("host", "c:8080")
                    ])
                ),
                Err(CrossOrigin::FetchSite(site.into()))
            );
        }
    }

    #[test]
    fn without_sec_fetch_site_the_origin_must_be_this_host() {
        let post = Method::POST;
        let same = headers(&[("origin", "http://console:8080"), ("host", "console:8080")]);
        assert!(check(&post, &same).is_ok());
        let other = headers(&[("origin", "http://evil.example"), ("host", "console:8080")]);
        assert!(matches!(check(&post, &other), Err(CrossOrigin::Origin(_))));
        let null = headers(&[("origin", "null"), ("host", "console:8080")]);
        assert!(matches!(check(&post, &null), Err(CrossOrigin::Origin(_))));
        // Neither header: not a browser, so not a page acting through one.
        assert!(check(&post, &HeaderMap::new()).is_ok());
    }

    #[test]
    fn reads_pass_and_text_plain_bodies_do_not() {
        let cross = headers(&[("sec-fetch-site", "cross-site")]);
        assert!(check(&Method::GET, &cross).is_ok());
        let plain = headers(&[("content-type", "text/plain;charset=UTF-8")]);
        assert!(matches!(
            check(&Method::POST, &plain),
            Err(CrossOrigin::ContentType(_))
        ));
    }
}
