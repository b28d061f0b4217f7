//! What came of an attempt at a change, in the words the audit and the
//! journal both store.

use serde::{Deserialize, Serialize};

/// What came of an attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Passed every check and is being sent to the admin API. Written
    /// before anything is sent; a later record of the same attempt says how
    /// it ended, and one without that record never got an answer.
    Sent,
    /// Sent to the admin API, which accepted it.
    Done,
    /// Refused by the console (origin, read-only, input, confirmation).
    Refused,
    /// Sent, and the admin API failed or refused it.
    Failed,
}

impl Outcome {
    pub const ALL: [Self; 4] = [Self::Sent, Self::Done, Self::Refused, Self::Failed];

    /// The word the records use.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Sent => "sent",
            Self::Done => "done",
            Self::Refused => "refused",
            Self::Failed => "failed",
        }
    }
}
