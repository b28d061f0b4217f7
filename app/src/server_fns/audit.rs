//! This console's recent audit records, for `/audit`: paged like every
//! table, so that its cost is one page whatever the records hold.

use leptos::prelude::*;

pub use crate::audit_record::{AuditRecord, Outcome};
use crate::error::ConsoleError;
use crate::table::TablePage;

/// The page of recent records that `query` (the table's URL query) shows.
#[server(endpoint = "/recent_audit")]
pub async fn recent_audit(
    #[server(default)] query: String,
) -> Result<TablePage<AuditRecord>, ConsoleError> {
    ssr::recent(query)
}

#[cfg(feature = "ssr")]
mod ssr {
    use super::*;
    use crate::server::ConsoleContext;
    use crate::table::TableQuery;

    /// The page's cluster's records, and those of attempts refused before
    /// they named a cluster: each cluster's audit is its own.
    pub fn recent(query: String) -> Result<TablePage<AuditRecord>, ConsoleError> {
        let cx = ConsoleContext::current()?;
        let mut records = cx.audit.recent();
        if let Some(page) = &cx.ui.cluster {
            records.retain(|r| r.cluster.as_ref().is_none_or(|c| *c == page.id));
        }
        Ok(TableQuery::parse(&query).page_of(&records))
    }
}
