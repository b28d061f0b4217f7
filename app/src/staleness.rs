//! Data shown in place of an answer that did not come in time: what the
//! server's reads note (`server::page_reads`) and a live part renders
//! (`live::part`).

use crate::error::ConsoleError;

/// How old the data shown is, for how long reads have failed or waited,
/// and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Staleness {
    pub data_age_secs: u64,
    pub failing_for_secs: Option<u64>,
    pub why: ConsoleError,
}
