//! A cluster as pages name it: the word in its addresses (`/c/{id}/…`),
//! the label the header shows, and its colour. Known to the server and to
//! the islands alike, so both build the same addresses.

use serde::{Deserialize, Serialize};

/// Every page of a cluster lives under this, then the cluster's id.
pub const PREFIX: &str = "/c/";

/// An id is a short word an operator types into an address.
pub const ID_LIMIT: usize = 32;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterTag {
    pub id: String,
    pub label: String,
    /// `#rgb` or `#rrggbb`, checked at start-up; none: the theme's own.
    #[serde(default)]
    pub colour: Option<String>,
}

impl ClusterTag {
    /// The start of every address of this cluster's pages, without a
    /// trailing slash: `/c/eu`.
    pub fn base(&self) -> String {
        base_of(&self.id)
    }
}

pub fn base_of(id: &str) -> String {
    format!("{PREFIX}{id}")
}

/// Lowercase letters, digits and inner dashes: nothing in it needs
/// encoding, and it reads the same in a URL, a log line and a chat.
pub fn is_valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= ID_LIMIT
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !id.starts_with('-')
        && !id.ends_with('-')
}

/// A colour a style attribute can carry as it is: nothing but `#` and hex
/// digits, so a settings file cannot write CSS into every page.
pub fn is_valid_colour(colour: &str) -> bool {
    let Some(hex) = colour.strip_prefix('#') else {
        return false;
    };
    matches!(hex.len(), 3 | 6) && hex.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The cluster id an address names, and the rest of it (`/` at least):
/// `/c/eu/nodes?q=a` is `("eu", "/nodes?q=a")`. `None` when the address is
/// not a cluster's.
pub fn split_scoped(path_and_query: &str) -> Option<(&str, &str)> {
    let rest = path_and_query.strip_prefix(PREFIX)?;
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (id, tail) = rest.split_at(end);
    if id.is_empty() {
        return None;
    }
    Some((id, tail))
}

/// The ids a `clusters=` parameter lists, each once, in order, no more than
/// there can be clusters.
pub fn listed_ids(clusters: &str, at_most: usize) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for id in clusters.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        if ids.len() >= at_most {
            break;
        }
        if !ids.iter().any(|i| i == id) {
            ids.push(id.chars().take(ID_LIMIT).collect());
        }
    }
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_plain_words() {
        for good in ["eu", "us-east-1", "a100", "x"] {
            assert!(is_valid_id(good), "{good}");
        }
        for bad in ["", "EU", "eu/1", "-eu", "eu-", "e u", "é", &"a".repeat(33)] {
            assert!(!is_valid_id(bad), "{bad}");
        }
    }

    #[test]
    fn colours_are_hex_only() {
        assert!(is_valid_colour("#2a7"));
        assert!(is_valid_colour("#22AA77"));
        for bad in ["red", "#12", "#1234567", "#12;x:y", "2a7", "#ggg"] {
            assert!(!is_valid_colour(bad), "{bad}");
        }
    }

    #[test]
    fn a_scoped_address_splits_into_cluster_and_page() {
        assert_eq!(split_scoped("/c/eu/nodes?q=a"), Some(("eu", "/nodes?q=a")));
        assert_eq!(split_scoped("/c/eu"), Some(("eu", "")));
        assert_eq!(split_scoped("/c/eu?x=1"), Some(("eu", "?x=1")));
        assert_eq!(split_scoped("/c/"), None);
        assert_eq!(split_scoped("/nodes"), None);
        assert_eq!(split_scoped("/cluster"), None);
    }
}
