//! The jump-to box: nodes, models and replicas of every cluster whose name
//! holds what was typed, best matches first. Read from the lists the pages
//! share, so a search costs the admin API nothing more.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::cluster_tag::ClusterTag;
use crate::error::ConsoleError;

/// Hits shown at most: a word that matches thousands of nodes wants the
/// node list's filter, which the page links to.
pub const HITS: usize = 30;

/// No name is longer; what a crafted link types is cut to it.
pub const QUERY_CHARS: usize = 128;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum HitKind {
    Node,
    Model,
    Replica,
}

impl HitKind {
    pub fn word(self) -> &'static str {
        match self {
            Self::Node => "node",
            Self::Model => "model",
            Self::Replica => "replica",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JumpHit {
    pub kind: HitKind,
    pub name: String,
    /// For a replica, its model.
    pub of: Option<String>,
    pub cluster: ClusterTag,
    /// The cluster of the page that asked: its links stay as they are.
    pub here: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JumpHits {
    pub hits: Vec<JumpHit>,
    /// How many matched in all, of which [`HITS`] are shown.
    pub matched: usize,
    /// Clusters whose lists could not be read: "eu: the admin API …".
    pub unread: Vec<String>,
    /// Whether the console shows several clusters (hits then name theirs).
    pub several: bool,
}

#[server(endpoint = "/jump_to")]
pub async fn jump_to(#[server(default)] q: String) -> Result<JumpHits, ConsoleError> {
    crate::server::page_reads::PageReads::patient(ssr::jump_to(q)).await
}

/// How well `name` matches `q` (lower-case): exact, then a prefix, then a
/// part of it; `None` when it does not.
pub fn rank(name: &str, q: &str) -> Option<u8> {
    let name = name.to_lowercase();
    if name == q {
        Some(0)
    } else if name.starts_with(q) {
        Some(1)
    } else if name.contains(q) {
        Some(2)
    } else {
        None
    }
}

#[cfg(feature = "ssr")]
mod ssr {
    use super::*;
    use crate::server::ConsoleContext;

    pub async fn jump_to(q: String) -> Result<JumpHits, ConsoleError> {
        let cx = ConsoleContext::current()?;
        let q: String = q
            .trim()
            .chars()
            .take(QUERY_CHARS)
            .collect::<String>()
            .to_lowercase();
        let mut found = JumpHits {
            several: cx.clusters.are_several(),
            ..JumpHits::default()
        };
        if q.is_empty() {
            return Ok(found);
        }
        let mut ranked: Vec<(u8, JumpHit)> = Vec::new();
        for cluster in cx.clusters.iter() {
            let lists = &cluster.snapshots;
            let (nodes, models, replicas) =
                tokio::join!(lists.nodes(), lists.models(), lists.replicas());
            let here = cluster.tag.id == cx.cluster.tag.id;
            let hit = |kind, name: &str, of: Option<&str>| JumpHit {
                kind,
                name: name.to_string(),
                of: of.map(str::to_string),
                cluster: cluster.tag.clone(),
                here,
            };
            let mut failed = None;
            match nodes {
                Ok(nodes) => {
                    ranked.extend(nodes.iter().filter_map(|n| {
                        rank(&n.id, &q).map(|r| (r, hit(HitKind::Node, &n.id, None)))
                    }))
                }
                Err(e) => failed = Some(e),
            }
            match models {
                Ok(models) => ranked.extend(models.iter().filter_map(|m| {
                    rank(&m.name, &q).map(|r| (r, hit(HitKind::Model, &m.name, None)))
                })),
                Err(e) => failed = Some(e),
            }
            match replicas {
                Ok(replicas) => ranked.extend(replicas.iter().filter_map(|r| {
                    rank(&r.id, &q).map(|k| (k, hit(HitKind::Replica, &r.id, Some(&r.model))))
                })),
                Err(e) => failed = Some(e),
            }
            if let Some(e) = failed {
                found.unread.push(format!("{}: {e}", cluster.tag.label));
            }
        }
        found.matched = ranked.len();
        // Best first; then the page's own cluster, then by name.
        ranked.sort_by(|(a, x), (b, y)| {
            (a, !x.here, x.name.len(), &x.name).cmp(&(b, !y.here, y.name.len(), &y.name))
        });
        found.hits = ranked.into_iter().take(HITS).map(|(_, h)| h).collect();
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exact_name_comes_before_a_prefix_before_a_part() {
        assert_eq!(rank("gpu-h100-01", "gpu-h100-01"), Some(0));
        assert_eq!(rank("GPU-H100-01", "gpu-h100"), Some(1));
        assert_eq!(rank("gpu-h100-01", "h100"), Some(2));
        assert_eq!(rank("gpu-a100-01", "h100"), None);
    }
}
