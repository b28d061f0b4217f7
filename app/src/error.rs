//! What the operator can be told went wrong. This one type crosses from the
//! server functions to the browser, as JSON.

use leptos::server_fn::codec::JsonEncoding;
use leptos::server_fn::error::{FromServerFnError, ServerFnErrorErr};
use serde::{Deserialize, Serialize};

use crate::admin_api::AdminApiError;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum ConsoleError {
    /// A call to the admin API failed: it did not answer, answered an error,
    /// or answered something that is not its contract. The page names the
    /// address tried and shows the server's own words, instead of an empty
    /// table that would read as "the cluster has no nodes".
    #[error(transparent)]
    AdminApi(#[from] AdminApiError),
    /// The browser asked for something that cannot be valid (an empty or
    /// malformed name). The sentence says what was wrong with it.
    #[error("{0}")]
    BadRequest(String),
    /// The console is in read-only mode and refused a change. Enforced on the
    /// server whatever the page shows.
    #[error(
        "this console is read-only; changes are made with llmgw ctl or a console that is not read-only"
    )]
    ReadOnly,
    /// The console requires a user (`--require-user`) and the request came
    /// without one from a trusted proxy.
    #[error(
        "this console makes changes only for a named user, and this request names none; sign in through the console's proxy"
    )]
    UserRequired,
    /// A cordon or drain arrived without the operator's confirmation. Only a
    /// hand-made request gets here: the page always asks first.
    #[error("this change needs a confirmation; review it and confirm")]
    ConfirmationMissing,
    /// A collection's confirmation token is unknown, used, expired, or for
    /// another scope. The operator reviews the list again.
    #[error("this confirmation is no longer valid ({reason}); review the list again")]
    ConfirmationStale { reason: String },
    /// The orphaned weights changed between the preview and the confirmation,
    /// so what was confirmed is not what would be deleted.
    #[error("the list changed, review it again")]
    ListChanged,
    /// The browser could not complete its call to the console itself (the
    /// console restarted, the network dropped). Nothing reached the admin API.
    #[error("the console did not answer: {0}")]
    Transport(String),
    /// A fault inside the console itself. The detail is in the console's log.
    #[error("the console failed: {0}")]
    Internal(String),
    /// The audit record of a change could not be written (disk full, file
    /// gone), so the change was not sent: no change goes unrecorded.
    #[error("the change was not sent: its audit record cannot be written ({0})")]
    AuditUnavailable(String),
}

impl ConsoleError {
    /// A one-line cause for people, and a hint when the fix is usually the
    /// same one.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            Self::AdminApi(AdminApiError::Unreachable { .. }) => Some(
                "Check that the llmgw server is running, and that the console points at its \
                 admin_listen address (:9090 by default), not at the port clients use.",
            ),
            Self::AdminApi(AdminApiError::Malformed { .. }) => {
                Some("The console may be pointed at something that is not an llmgw admin API.")
            }
            Self::Transport(_) => Some("The page will retry on its own."),
            _ => None,
        }
    }

    /// The error as a receipt or a page may say it: in the console's own
    /// words. A malformed request's detail quotes what it carried, which
    /// anyone can write; that detail stays in the audit.
    pub fn in_console_words(&self) -> String {
        match self {
            Self::BadRequest(_) => "the request was not one this console's pages send".into(),
            other => other.to_string(),
        }
    }

    /// The HTTP status a server function answers with when it fails, so that
    /// a client, a proxy's log or a test can tell a refusal from a fault.
    pub fn http_status(&self) -> u16 {
        match self {
            Self::AdminApi(e) => e.http_status(),
            Self::BadRequest(_) => 400,
            Self::ReadOnly => 403,
            Self::UserRequired => 401,
            // The operator must look again before anything is sent.
            Self::ConfirmationMissing => 428,
            Self::ConfirmationStale { .. } | Self::ListChanged => 409,
            Self::Transport(_) | Self::Internal(_) => 500,
            Self::AuditUnavailable(_) => 503,
        }
    }
}

impl FromServerFnError for ConsoleError {
    type Encoder = JsonEncoding;

    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        match value {
            ServerFnErrorErr::Args(m) | ServerFnErrorErr::MissingArg(m) => Self::BadRequest(m),
            other => Self::Transport(other.to_string()),
        }
    }
}
