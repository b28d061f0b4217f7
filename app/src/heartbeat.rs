//! What the server pushes to every open page, once a refresh period and at
//! once after a change: which generation of the cluster's lists it holds, and
//! whether the admin API answered. A page reads its data again only when
//! either differs from the last it heard.

use serde::{Deserialize, Serialize};

/// Where pages subscribe (server-sent events).
pub const PATH: &str = "/updates";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Heartbeat {
    /// Moves with any list's substance, with the audit, and once a minute
    /// (so relative times on screen are at most a minute old).
    pub generation: u64,
    /// Whether every list answered on the last poll.
    pub ok: bool,
}
