//! Server functions, one file per resource. Each file opens with the types
//! its functions answer with; each `#[server]` function is one line that
//! calls into the file's server-only `ssr` module, which finds the request's
//! context, checks what must be checked on the server, calls the admin API
//! client and shapes the answer.

pub mod audit;
#[cfg(feature = "ssr")]
pub mod calls;
pub mod cluster;
pub mod events;
pub mod fleet;
pub mod jump;
pub mod nodes;
pub mod placement;
pub mod receipts;
pub mod wall;
pub mod weights;

/// The server functions that only read (their endpoint names). Every other
/// call is an attempt at a change and the router audits it: a new function
/// missing from this list is audited, never the reverse.
pub const READS: [&str; 17] = [
    "list_nodes",
    "inspect_node",
    "preview_drain",
    "list_models",
    "list_replicas",
    "cluster_overview",
    "explain_placement",
    "list_orphans",
    "preview_collect",
    "review_collect",
    "read_receipt",
    "recent_audit",
    "read_wall",
    "fleet_overview",
    "read_walls",
    "list_events",
    "jump_to",
];

/// The functions about every cluster at once, the only ones a request that
/// names no cluster may call on a console of several: any other, a function
/// added tomorrow included, is about one cluster and must say which.
pub const CONSOLE_WIDE: [&str; 3] = ["fleet_overview", "read_walls", "jump_to"];

pub fn is_console_wide(endpoint: &str) -> bool {
    CONSOLE_WIDE.contains(&endpoint)
}

/// The functions that read the journal's history with filters the client
/// chooses: they take turns of their own (one at a time), not the renders'.
pub const HISTORY: [&str; 1] = ["list_events"];

pub fn reads_history(endpoint: &str) -> bool {
    HISTORY.contains(&endpoint)
}

pub fn is_read(endpoint: &str) -> bool {
    READS.contains(&endpoint)
}
