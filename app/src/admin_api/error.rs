//! Every way a call to the admin API can fail. It crosses to the browser
//! inside [`ConsoleError::AdminApi`](crate::error::ConsoleError), so each
//! message is written once, here.

use serde::{Deserialize, Serialize};

/// One variant per way a call can fail; each says what the operator is told.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum AdminApiError {
    /// Nothing answered: connection refused, no route, name not found, TLS
    /// failure, or no answer within the timeout. The message names the address
    /// tried, because the usual cause is a console pointed at the wrong port.
    #[error("cannot reach the llmgw admin API at {address}: {cause}")]
    Unreachable { address: String, cause: String },
    /// The API answered with a status other than 200. `status` is the status
    /// line ("404 Not Found") and `message` the server's own words, shown
    /// verbatim.
    #[error("the llmgw admin API answered {status}: {message}")]
    Status {
        code: u16,
        status: String,
        message: String,
    },
    /// The API answered 200 with something that is not the documented shape
    /// (or is larger than any real answer would be). Shown as such, so nobody
    /// mistakes it for data.
    #[error("the llmgw admin API at {address} sent {expected} that could not be read: {cause}")]
    Malformed {
        address: String,
        expected: String,
        cause: String,
    },
    /// The model is not in the catalog the console last read, so llmgw was
    /// not asked to explain it: anyone can make up names, and each one
    /// would otherwise be a call to the control plane.
    #[error(
        "{model:?} is not in the catalog (as llmgw listed it within the last poll), so there is no placement to explain"
    )]
    NotInCatalog { model: String },
    /// A page stopped waiting for an answer still on its way: the read
    /// goes on, and the page reads again when it lands.
    #[error(
        "the llmgw admin API has not answered in {waited_secs} s; the console keeps asking, and the page reads again when it answers"
    )]
    Slow { waited_secs: u64 },
}

impl AdminApiError {
    /// The status the console answers with: the admin API's own 4xx when it
    /// judged the request (a model that does not exist is a 404 here too),
    /// otherwise 502: the fault is upstream of the console.
    pub fn http_status(&self) -> u16 {
        match self {
            Self::Status { code, .. } if (400..500).contains(code) => *code,
            Self::NotInCatalog { .. } => 404,
            Self::Slow { .. } => 504,
            _ => 502,
        }
    }
}
