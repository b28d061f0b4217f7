//! Names and addresses that arrive in requests, checked before anything is
//! sent upstream or written to a log: a newline in a node id would forge a
//! log line, a tab would make the console act on one node while showing
//! another, and a control character in a redirect would fail after the
//! change was already made.

use crate::error::ConsoleError;
use crate::urls;

/// No node id or model name comes near this.
const NAME_LIMIT: usize = 512;

/// `value` as a name of `what` ("node id", "model name"): not empty, no
/// control or invisible formatting characters, not absurdly long, and not
/// a path step. The refusal never repeats the value: what a request
/// carries is not the console's to say.
pub fn name<'a>(what: &str, value: &'a str) -> Result<&'a str, ConsoleError> {
    if value.trim().is_empty() {
        return Err(ConsoleError::BadRequest(format!("a {what} is required")));
    }
    if value.chars().any(|c| c.is_control() || breaks_a_line(c)) {
        return Err(ConsoleError::BadRequest(format!(
            "that is not a {what}: it contains control characters"
        )));
    }
    if value.chars().any(is_format_character) {
        return Err(ConsoleError::BadRequest(format!(
            "that is not a {what}: it contains invisible formatting characters"
        )));
    }
    if value.len() > NAME_LIMIT || value == "." || value == ".." {
        return Err(ConsoleError::BadRequest(format!("that is not a {what}")));
    }
    Ok(value)
}

pub use llmgw_journal::record::NOTE_LIMIT;

/// An operator's optional line of text (a cordon's reason): trimmed, none
/// when blank, one line without control or invisible characters, and at
/// most [`NOTE_LIMIT`] characters. Refused rather than cut: the operator
/// would not know what was kept.
pub fn note(what: &str, value: Option<&str>) -> Result<Option<String>, ConsoleError> {
    let value = value.unwrap_or_default().trim();
    if value.is_empty() {
        return Ok(None);
    }
    if value
        .chars()
        .any(|c| c.is_control() || is_format_character(c) || breaks_a_line(c))
    {
        return Err(ConsoleError::BadRequest(format!(
            "the {what} must be one line of plain text"
        )));
    }
    if value.chars().count() > NOTE_LIMIT {
        return Err(ConsoleError::BadRequest(format!(
            "the {what} is at most {NOTE_LIMIT} characters"
        )));
    }
    Ok(Some(value.to_string()))
}

/// Unicode's line and paragraph separators (U+2028, U+2029): not control
/// characters, yet a line break to whatever shows or parses the text (a
/// log viewer, JavaScript before ES2019).
pub fn breaks_a_line(c: char) -> bool {
    matches!(c, '\u{2028}' | '\u{2029}')
}

/// Unicode's format characters (category Cf): bidirectional overrides and
/// isolates that make a name read differently from what it is, zero-width
/// spaces and joiners that make two names look alike, tags. No node id or
/// model name has a use for one.
pub fn is_format_character(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'
            | '\u{600}'..='\u{605}'
            | '\u{61c}'
            | '\u{6dd}'
            | '\u{70f}'
            | '\u{890}'..='\u{891}'
            | '\u{8e2}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{110bd}'
            | '\u{110cd}'
            | '\u{13430}'..='\u{1343f}'
            | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0001}'
            | '\u{e0020}'..='\u{e007f}'
    )
}

/// A node id, or nothing (every node).
pub fn optional_name<'a>(what: &str, value: &'a str) -> Result<Option<&'a str>, ConsoleError> {
    if value.is_empty() {
        Ok(None)
    } else {
        name(what, value).map(Some)
    }
}

/// Where an action returns the browser to: a path on this console. Only
/// [`ReturnPath::from_form`] makes one, so an action cannot redirect to an
/// address that was not checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReturnPath(String);

impl ReturnPath {
    /// `back` from a form, checked before the action runs: control
    /// characters are refused; anything that is not plainly a path on this
    /// console becomes `fallback`, a page of the request's cluster.
    pub fn from_form(back: Option<&str>, fallback: &str) -> Result<Self, ConsoleError> {
        if back.is_some_and(|b| b.chars().any(char::is_control)) {
            return Err(ConsoleError::BadRequest(
                "the address to return to contains control characters".into(),
            ));
        }
        Ok(Self(urls::local_return_path(back, &urls::scoped(fallback))))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_is_one_short_line_or_nothing() {
        assert_eq!(note("reason", None), Ok(None));
        assert_eq!(note("reason", Some("   ")), Ok(None));
        assert_eq!(
            note("reason", Some(" NVLink errors, RMA 4411 ")),
            Ok(Some("NVLink errors, RMA 4411".into()))
        );
        assert!(note("reason", Some("two\nlines")).is_err());
        assert!(note("reason", Some("two\u{2028}lines")).is_err());
        assert!(note("reason", Some("two\u{2029}paragraphs")).is_err());
        assert!(name("node id", "gpu\u{2028}01").is_err());
        assert!(note("reason", Some("looks\u{202e}different")).is_err());
        assert!(note("reason", Some(&"é".repeat(NOTE_LIMIT))).is_ok());
        assert!(note("reason", Some(&"x".repeat(64 * 1024))).is_err());
    }

    #[test]
    fn names_with_control_characters_or_nothing_in_them_are_refused() {
        assert_eq!(name("node id", "gpu-h100-01"), Ok("gpu-h100-01"));
        assert_eq!(
            name("model name", "acme/support bot:v2"),
            Ok("acme/support bot:v2")
        );
        for bad in [
            "",
            "  ",
            "gpu\n01",
            "gpu\t01",
            "gpu\u{7f}",
            ".",
            "..",
            "gpu-\u{202e}10-upg",
            "gpu\u{200b}01",
            "gpu\u{feff}",
            "gpu\u{e0041}",
        ] {
            assert!(
                matches!(name("node id", bad), Err(ConsoleError::BadRequest(_))),
                "{bad:?}"
            );
        }
        assert!(name("node id", &"x".repeat(600)).is_err());
        let Err(ConsoleError::BadRequest(why)) = name("node id", "curl evil\u{202e}") else {
            panic!("refused");
        };
        assert!(!why.contains("curl"), "the refusal repeats no input: {why}");
        assert_eq!(optional_name("node id", ""), Ok(None));
    }

    #[test]
    fn a_return_path_is_checked_before_the_action() {
        for bad in ["/\n", "/\t/evil.example", "/nodes\r\nSet-Cookie: x=1"] {
            assert!(
                ReturnPath::from_form(Some(bad), "/nodes").is_err(),
                "{bad:?}"
            );
        }
        let back = ReturnPath::from_form(Some("//evil.example"), "/nodes").expect("falls back");
        assert_eq!(back.as_str(), "/nodes");
        let back = ReturnPath::from_form(Some("/nodes?q=a&confirm=drain"), "/").expect("kept");
        assert_eq!(back.as_str(), "/nodes?q=a");
    }
}
