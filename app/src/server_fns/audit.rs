//! This console's recent audit records, for `/audit`.

use leptos::prelude::*;

pub use crate::audit_record::{AuditRecord, Outcome};
use crate::error::ConsoleError;

#[server(endpoint = "/recent_audit")]
pub async fn recent_audit() -> Result<Vec<AuditRecord>, ConsoleError> {
    ssr::recent()
}

#[cfg(feature = "ssr")]
mod ssr {
    use super::*;
    use crate::server::ConsoleContext;

    pub fn recent() -> Result<Vec<AuditRecord>, ConsoleError> {
        Ok(ConsoleContext::current()?.audit.recent())
    }
}
