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
/// control characters, not absurdly long, and not a path step.
pub fn name<'a>(what: &str, value: &'a str) -> Result<&'a str, ConsoleError> {
    if value.trim().is_empty() {
        return Err(ConsoleError::BadRequest(format!("a {what} is required")));
    }
    if value.chars().any(char::is_control) {
        return Err(ConsoleError::BadRequest(format!(
            "{value:?} is not a {what}: it contains control characters"
        )));
    }
    if value.len() > NAME_LIMIT || value == "." || value == ".." {
        return Err(ConsoleError::BadRequest(format!(
            "{value:?} is not a {what}"
        )));
    }
    Ok(value)
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
    /// console becomes `fallback`.
    pub fn from_form(back: Option<&str>, fallback: &str) -> Result<Self, ConsoleError> {
        if back.is_some_and(|b| b.chars().any(char::is_control)) {
            return Err(ConsoleError::BadRequest(
                "the address to return to contains control characters".into(),
            ));
        }
        Ok(Self(urls::local_return_path(back, fallback)))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_with_control_characters_or_nothing_in_them_are_refused() {
        assert_eq!(name("node id", "gpu-h100-01"), Ok("gpu-h100-01"));
        assert_eq!(
            name("model name", "acme/support bot:v2"),
            Ok("acme/support bot:v2")
        );
        for bad in ["", "  ", "gpu\n01", "gpu\t01", "gpu\u{7f}", ".", ".."] {
            assert!(
                matches!(name("node id", bad), Err(ConsoleError::BadRequest(_))),
                "{bad:?}"
            );
        }
        assert!(name("node id", &"x".repeat(600)).is_err());
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
