//! This console's recent audit records, for `/audit`: paged like every
//! table, so that its cost is one page whatever the records hold.

use leptos::prelude::*;

pub use crate::audit_record::{AuditRecord, Outcome};
use crate::error::ConsoleError;
use crate::table::{Row, TablePage};

/// The page of recent records that `query` (the table's URL query) shows.
#[server(endpoint = "/recent_audit")]
pub async fn recent_audit(
    #[server(default)] query: String,
) -> Result<TablePage<Row<AuditRecord>>, ConsoleError> {
    ssr::recent(query)
}

#[cfg(feature = "ssr")]
mod ssr {
    use super::*;
    use crate::server::ConsoleContext;
    use crate::table::TableQuery;

    pub fn recent(query: String) -> Result<TablePage<Row<AuditRecord>>, ConsoleError> {
        let cx = ConsoleContext::current()?;
        Ok(TableQuery::parse(&query).page_of(&cx.audit_records()))
    }
}
