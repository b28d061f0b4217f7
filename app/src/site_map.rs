//! The pages an operator goes to by name: where each lives, what it is
//! called, its label in the header and its `g` key. The routes, the
//! navigation, the shortcuts and each page's title all read this one list,
//! so a new page is one entry here and one view.

use std::sync::Arc;

use leptos_router::{PossibleRouteMatch, StaticSegment};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Destination {
    pub path: &'static str,
    /// The page's title, and what `?` says `g` + key goes to.
    pub title: &'static str,
    /// The header's link.
    pub label: &'static str,
    /// Pressed after `g`.
    pub key: char,
}

pub const OVERVIEW: Destination = Destination::new("/", "Overview", "Overview", 'o');
pub const NODES: Destination = Destination::new("/nodes", "Nodes", "Nodes", 'n');
pub const MODELS: Destination = Destination::new("/models", "Models", "Models", 'm');
pub const REPLICAS: Destination = Destination::new("/replicas", "Replicas", "Replicas", 'r');
pub const WEIGHTS: Destination = Destination::new("/weights", "Orphaned weights", "Weights", 'w');
pub const EVENTS: Destination = Destination::new("/events", "Events", "Events", 'e');
pub const AUDIT: Destination = Destination::new("/audit", "Audit", "Audit", 'a');
/// Not in the header's list: the header has a box for it.
pub const JUMP: Destination = Destination::new("/jump", "Jump to", "Jump to", 'f');
pub const WALL_SETUP: Destination = Destination::new("/wall/setup", "Wall screen", "Wall", 's');

/// In the header's order.
pub const DESTINATIONS: [Destination; 8] = [
    OVERVIEW, NODES, MODELS, REPLICAS, WEIGHTS, EVENTS, AUDIT, WALL_SETUP,
];

impl Destination {
    const fn new(path: &'static str, title: &'static str, label: &'static str, key: char) -> Self {
        Self {
            path,
            title,
            label,
            key,
        }
    }

    /// The router's match for `path`, one static segment per part.
    pub fn route(&self) -> Arc<dyn PossibleRouteMatch + Send + Sync> {
        let parts: Vec<&'static str> = self.path.split('/').filter(|p| !p.is_empty()).collect();
        match parts.as_slice() {
            [] => Arc::new(()),
            [a] => Arc::new((StaticSegment(*a),)),
            [a, b] => Arc::new((StaticSegment(*a), StaticSegment(*b))),
            _ => unreachable!("no destination is deeper than two parts"),
        }
    }

    /// Whether the page at `path` (within a cluster) is this destination
    /// or one of its objects: a node's page is under Nodes.
    pub fn is_within(&self, path: &str) -> bool {
        if self.path == "/" {
            return path == "/";
        }
        path == self.path
            || path
                .strip_prefix(self.path)
                .is_some_and(|rest| rest.starts_with('/') && self.path != "/wall")
    }

    /// The destination `g` then `key` goes to.
    pub fn for_key(key: char) -> Option<&'static Destination> {
        DESTINATIONS.iter().find(|d| d.key == key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_destination_has_its_own_key_and_path() {
        let mut keys: Vec<char> = DESTINATIONS.iter().map(|d| d.key).collect();
        let mut paths: Vec<&str> = DESTINATIONS.iter().map(|d| d.path).collect();
        keys.sort_unstable();
        keys.dedup();
        paths.sort_unstable();
        paths.dedup();
        assert_eq!(keys.len(), DESTINATIONS.len());
        assert_eq!(paths.len(), DESTINATIONS.len());
        // `g` waits for the key; `j`, `k` and `g` itself mean something else.
        assert!(keys.iter().all(|k| !"gjk".contains(*k)));
    }

    #[test]
    fn a_page_is_within_its_destination() {
        assert!(NODES.is_within("/nodes"));
        assert!(NODES.is_within("/nodes/gpu-1"));
        assert!(!NODES.is_within("/nodesx"));
        assert!(OVERVIEW.is_within("/"));
        assert!(!OVERVIEW.is_within("/nodes"));
        assert!(WALL_SETUP.is_within("/wall/setup"));
    }

    #[test]
    fn a_route_matches_its_own_path_only() {
        for d in DESTINATIONS {
            assert!(
                d.route().test(d.path).is_some_and(|m| m.is_complete()),
                "{}",
                d.path
            );
        }
        assert!(NODES.route().test("/models").is_none());
        assert!(
            !NODES
                .route()
                .test("/nodes/a")
                .is_some_and(|m| m.is_complete())
        );
    }
}
