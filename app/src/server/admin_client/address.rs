//! Turning what an operator typed into the admin API's base address.

use reqwest::Url;

/// Parses an admin API address the way `llmgw ctl --server` does: a bare
/// `host:port` means `http://host:port`, and `https://` works as well.
///
/// The error is a sentence for a person who typed a flag, not a parser's
/// diagnostic.
pub fn parse_admin_api_base(raw: &str) -> Result<Url, String> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Err("the admin API address is empty".into());
    }
    let with_scheme = if trimmed.starts_with("http://") || trimmed.starts_with("https://") {
        trimmed.to_string()
    } else if trimmed.contains("://") {
        return Err(format!(
            "the admin API address {trimmed:?} must use http:// or https://"
        ));
    } else {
        format!("http://{trimmed}")
    };
    let mut url = Url::parse(&with_scheme)
        .map_err(|e| format!("the admin API address {trimmed:?} is not a valid URL: {e}"))?;
    if url.host_str().is_none_or(str::is_empty) {
        return Err(format!("the admin API address {trimmed:?} names no host"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!(
            "the admin API address {trimmed:?} must not carry a query or fragment"
        ));
    }
    // A trailing slash would otherwise double up when paths are appended.
    let path = url.path().trim_end_matches('/').to_string();
    url.set_path(&path);
    Ok(url)
}

/// `url` as it may be shown on a page or written to a log: a user name or
/// password in it (`https://user:pass@host`) becomes `***`.
pub fn redacted(url: &Url) -> String {
    let mut shown = url.clone();
    if !shown.username().is_empty() || shown.password().is_some() {
        let _ = shown.set_password(None);
        let _ = shown.set_username("***");
    }
    shown.as_str().trim_end_matches('/').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_host_and_port_means_http() {
        let url = parse_admin_api_base("127.0.0.1:9090").expect("parses");
        assert_eq!(url.as_str(), "http://127.0.0.1:9090/");
        let url = parse_admin_api_base("llmgw-admin.internal:9090").expect("parses");
        assert_eq!(url.scheme(), "http");
        assert_eq!(url.host_str(), Some("llmgw-admin.internal"));
    }

    #[test]
    fn https_and_path_prefixes_are_kept() {
        let url = parse_admin_api_base("https://ops.example/llmgw/").expect("parses");
        assert_eq!(url.as_str(), "https://ops.example/llmgw");
    }

    #[test]
    fn credentials_are_never_shown() {
        let url =
            parse_admin_api_base("https://ops:s3cret@admin.example:9090/llmgw").expect("parses");
        assert_eq!(redacted(&url), "https://***@admin.example:9090/llmgw");
        let url = parse_admin_api_base("127.0.0.1:9090").expect("parses");
        assert_eq!(redacted(&url), "http://127.0.0.1:9090");
    }

    #[test]
    fn nonsense_is_refused_with_a_reason() {
        assert!(parse_admin_api_base("").is_err());
        assert!(parse_admin_api_base("ftp://x:1").is_err());
        assert!(parse_admin_api_base("http://").is_err());
        assert!(parse_admin_api_base("http://h:99999").is_err());
        assert!(parse_admin_api_base("h:1?x=1").is_err());
    }
}
