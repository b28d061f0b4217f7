//! What the server pushes to every open page, once a refresh period and at
//! once after a change: which generation of the cluster's lists it holds,
//! whether the admin API answered, and the cluster's pulse for the tab's
//! title and icon. A page reads its data again only when the heartbeat
//! differs from the last it heard.

use serde::{Deserialize, Serialize};

use crate::wall::Pulse;

/// Where pages subscribe (server-sent events). A page about several
/// clusters adds the `clusters=` of its own address.
pub const PATH: &str = "/updates";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Heartbeat {
    /// Moves with any list's substance, with the audit, and once a minute
    /// (so relative times on screen are at most a minute old).
    pub generation: u64,
    /// Whether every list answered on the last poll.
    pub ok: bool,
    /// The pulse of that poll; none when the lists behind it could not be
    /// read. Pushed, so that no tab asks for it on every change.
    #[serde(default)]
    pub pulse: Option<Pulse>,
}

impl Heartbeat {
    /// The heartbeats of several clusters as one: it moves when either
    /// moves, is ok when both are, and its pulse counts the trouble of
    /// both (a cluster whose lists could not be read adds none).
    pub fn merge(self, other: Self) -> Self {
        Self {
            generation: self.generation.wrapping_add(other.generation),
            ok: self.ok && other.ok,
            pulse: match (self.pulse, other.pulse) {
                (Some(a), Some(b)) => Some(Pulse {
                    not_serving: a.not_serving + b.not_serving,
                    below_wanted: a.below_wanted + b.below_wanted,
                    nodes_in_trouble: a.nodes_in_trouble + b.nodes_in_trouble,
                }),
                (one, other) => one.or(other),
            },
        }
    }
}
