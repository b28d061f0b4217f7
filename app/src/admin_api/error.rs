//! Every way a call to the admin API can fail.

use crate::error::ConsoleError;

/// One variant per way a call can fail; each says what the operator is told.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AdminApiError {
    /// Nothing answered: connection refused, no route, name not found, TLS
    /// failure, or no answer within the timeout. The message names the address
    /// tried, because the usual cause is a console pointed at the wrong port.
    #[error("cannot reach the llmgw admin API at {address}: {cause}")]
    Unreachable { address: String, cause: String },
    /// The API answered with a status other than 200. `status` is the status
    /// line ("404 Not Found") and `message` the server's own words.
    #[error("{status}: {message}")]
    Status { status: String, message: String },
    /// The API answered 200 with something that is not the documented shape
    /// (or is larger than any real answer would be).
    #[error("the llmgw admin API at {address} sent {expected} that could not be read: {cause}")]
    Malformed {
        address: String,
        expected: &'static str,
        cause: String,
    },
}

impl From<AdminApiError> for ConsoleError {
    fn from(e: AdminApiError) -> Self {
        match e {
            AdminApiError::Unreachable { address, cause } => {
                ConsoleError::Unreachable { address, cause }
            }
            AdminApiError::Status { status, message } => ConsoleError::Upstream { status, message },
            AdminApiError::Malformed {
                address,
                expected,
                cause,
            } => ConsoleError::Malformed {
                address,
                expected: expected.to_string(),
                cause,
            },
        }
    }
}
