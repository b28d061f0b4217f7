//! The site built by scripts/build.mjs (WASM, JS, CSS, `public/` files), compiled
//! into the binary. Precompressed copies are chosen by `Accept-Encoding`, and
//! an `ETag` per copy lets a browser revalidate with a `304`.
//!
//! Pages ask for the browser's code as `/pkg/<build>/<file>`: the build is
//! a digest of that code, so a name never changes meaning and the browser
//! keeps those files for a year without asking again. Everything else (and
//! `/pkg/<file>` itself) is revalidated on every use.
//!
//! A release binary carries the WASM only compressed (brotli and gzip): the
//! uncompressed copy was 2 MB of the binary, for clients that accept
//! neither, which get the gzip copy decompressed on the way out.

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::Response;

#[derive(rust_embed::Embed)]
#[folder = "target/site"]
#[allow_missing = true]
// wasm-bindgen's type declarations serve no browser.
#[exclude = "*.d.ts*"]
// A debug build (`make dev`) has no compressed copies to fall back on.
#[cfg_attr(not(debug_assertions), exclude = "pkg/*.wasm")]
struct Site;

/// Names this build of the browser's code: a digest of the WASM, JS and CSS
/// compiled into the binary. A wall screen that sees another one reloads.
/// `LLMGW_CONSOLE_BUILD` replaces it, so that a test can play an upgrade
/// with one binary.
pub fn build_id() -> String {
    static BUILD: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BUILD.get_or_init(digest_of_the_code).clone()
}

fn digest_of_the_code() -> String {
    if let Ok(forced) = std::env::var("LLMGW_CONSOLE_BUILD") {
        return forced;
    }
    // Every file under pkg/, the pages' chunks of WASM among them: a page's
    // code can change while the main module stays the same, and a browser
    // must then not keep the old chunk under the same name.
    let mut files: Vec<_> = Site::iter().filter(|p| p.starts_with("pkg/")).collect();
    if files.is_empty() {
        return "unbuilt".into();
    }
    files.sort();
    let mut digest = std::hash::DefaultHasher::new();
    for path in files {
        if let Some(file) = Site::get(&path) {
            std::hash::Hash::hash(&(path.as_ref(), file.metadata.sha256_hash()), &mut digest);
        }
    }
    format!("{:016x}", std::hash::Hasher::finish(&digest))
}

/// Encodings we hold precompressed copies for, best first.
const ENCODINGS: [(&str, &str); 2] = [("br", ".br"), ("gzip", ".gz")];

/// The file at `path` as it is stored: plain, or else its first compressed
/// copy (the same bytes, so the same digest for the build's name).
fn stored(path: &str) -> Option<rust_embed::EmbeddedFile> {
    Site::get(path).or_else(|| {
        ENCODINGS
            .iter()
            .find_map(|(_, ext)| Site::get(&format!("{path}{ext}")))
    })
}

/// `path`'s plain bytes when only compressed copies are embedded.
fn decompressed(path: &str) -> Option<(Vec<u8>, [u8; 32])> {
    use std::io::Read;
    let gz = Site::get(&format!("{path}.gz"))?;
    let mut plain = Vec::new();
    flate2::read::GzDecoder::new(&gz.data[..])
        .read_to_end(&mut plain)
        .ok()?;
    let mut hash = gz.metadata.sha256_hash();
    // Another representation than the gzip copy's: another ETag.
    hash[0] ^= 0xff;
    Some((plain, hash))
}

/// The embedded file at `path`, or `None` to let the pages answer.
pub fn respond(method: &Method, path: &str, headers: &HeaderMap) -> Option<Response> {
    if method != Method::GET && method != Method::HEAD {
        return None;
    }
    let path = path.trim_start_matches('/');
    if path.is_empty() || path.ends_with(".br") || path.ends_with(".gz") {
        return None;
    }
    let (path, immutable) = embedded_name(path);
    let path = path.as_str();
    let accept = headers
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let compressed = ENCODINGS
        .iter()
        .filter(|(name, _)| accepts(accept, name))
        .find_map(|(name, ext)| Site::get(&format!("{path}{ext}")).map(|f| (f, *name)));
    let (data, hash, encoding) = match compressed {
        Some((file, name)) => (file.data, file.metadata.sha256_hash(), Some(name)),
        None => match Site::get(path) {
            Some(file) => (file.data, file.metadata.sha256_hash(), None),
            None => {
                let (plain, hash) = decompressed(path)?;
                (plain.into(), hash, None)
            }
        },
    };

    let etag = format!("\"{}\"", hex(&hash[..16]));
    let mut response = Response::builder()
        .header(header::ETAG, &etag)
        .header(header::VARY, "Accept-Encoding")
        // A name that is not the build's may mean other bytes tomorrow, so
        // browsers revalidate it; the ETag makes that a 304 with no body.
        .header(
            header::CACHE_CONTROL,
            if immutable {
                "public, max-age=31536000, immutable"
            } else {
                "no-cache"
            },
        );
    if matches_etag(headers, &etag) {
        response = response.status(StatusCode::NOT_MODIFIED);
        return response.body(Body::empty()).ok();
    }
    let mime = mime_guess::from_path(path).first_or_octet_stream();
    response = response.header(header::CONTENT_TYPE, mime.as_ref());
    if let Some(encoding) = encoding {
        response = response.header(header::CONTENT_ENCODING, HeaderValue::from_static(encoding));
    }
    let body = if method == Method::HEAD {
        Body::empty()
    } else {
        Body::from(data.into_owned())
    };
    response.body(body).ok()
}

/// The embedded file a request path names, and whether that name is this
/// build's (`pkg/<build>/<file>`, which is `pkg/<file>` of this binary).
fn embedded_name(path: &str) -> (String, bool) {
    if stored(path).is_some() {
        return (path.to_string(), false);
    }
    match path
        .strip_prefix("pkg/")
        .and_then(|rest| rest.split_once('/'))
    {
        Some((build, file)) => (format!("pkg/{file}"), build == build_id()),
        None => (path.to_string(), false),
    }
}

/// Whether `Accept-Encoding` admits `encoding` (named or by `*`, and not
/// with `q=0`).
fn accepts(header_value: &str, encoding: &str) -> bool {
    let mut wildcard = false;
    for item in header_value.split(',') {
        let mut parts = item.split(';');
        let name = parts.next().unwrap_or("").trim();
        let refused = parts.any(|p| {
            p.trim()
                .strip_prefix("q=")
                .and_then(|q| q.trim().parse::<f32>().ok())
                .is_some_and(|q| q <= 0.0)
        });
        if name.eq_ignore_ascii_case(encoding) {
            return !refused;
        }
        if name == "*" && !refused {
            wildcard = true;
        }
    }
    wildcard
}

fn matches_etag(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().trim_start_matches("W/"))
        .any(|t| t == "*" || t == etag)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_encoding_is_read_with_q_values() {
        assert!(accepts("gzip, deflate, br, zstd", "br"));
        assert!(accepts("gzip;q=1.0, br;q=0.5", "br"));
        assert!(!accepts("gzip, br;q=0", "br"));
        assert!(!accepts("gzip", "br"));
        assert!(accepts("*", "br"));
        assert!(!accepts("*, br;q=0", "br"));
        assert!(!accepts("", "gzip"));
    }

    #[test]
    fn if_none_match_accepts_lists_and_weak_tags() {
        let mut h = HeaderMap::new();
        h.insert(
            header::IF_NONE_MATCH,
            HeaderValue::from_static("\"a\", W/\"b\""),
        );
        assert!(matches_etag(&h, "\"b\""));
        assert!(!matches_etag(&h, "\"c\""));
    }
}
