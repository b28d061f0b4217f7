//! A cluster's headline figures at one moment: what the journal keeps for
//! the wall's trends.

use serde::{Deserialize, Serialize};

/// The headline figures at one moment, kept for the trends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    /// Seconds since the Unix epoch.
    pub at: i64,
    pub gpu_free: i64,
    pub gpu_total: i64,
    pub unhealthy_gpus: i64,
    pub not_serving: i64,
    pub nodes_in_trouble: i64,
    pub reclaimable_bytes: i64,
}
