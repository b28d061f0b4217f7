//! Which tables can be downloaded (`/nodes?format=csv`), and from which
//! page: the one list of them, for the server's exports and the pages'
//! download links alike.

/// The tables that can be downloaded, each from its page
/// (`/nodes?format=csv`); the one list of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportedTable {
    Nodes,
    Models,
    Replicas,
    Weights,
    Audit,
}

impl ExportedTable {
    pub const ALL: [Self; 5] = [
        Self::Nodes,
        Self::Models,
        Self::Replicas,
        Self::Weights,
        Self::Audit,
    ];

    /// The page that gives it, within a cluster's addresses.
    pub fn page(self) -> &'static str {
        match self {
            Self::Nodes => "/nodes",
            Self::Models => "/models",
            Self::Replicas => "/replicas",
            Self::Weights => "/weights",
            Self::Audit => "/audit",
        }
    }

    /// Its name in a file's name: `eu-nodes.csv`.
    pub fn name(self) -> &'static str {
        &self.page()[1..]
    }

    /// The table a page's path gives, if it gives one.
    pub fn at(path: &str) -> Option<Self> {
        let path = path.trim_end_matches('/');
        Self::ALL.into_iter().find(|t| t.page() == path)
    }
}
