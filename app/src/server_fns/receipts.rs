//! What every action leaves behind for the page it returns to.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::ConsoleError;

/// The outcome of one action, as the operator reads it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receipt {
    /// "Drain gpu-h100-01", "Collect orphaned weights on every node".
    pub action: String,
    /// The server's error, verbatim, when the action failed as a whole.
    pub error: Option<String>,
    /// One line per result ("gpu-a: asked to remove 3 files, 141.9 GB").
    pub lines: Vec<String>,
    /// Lines that report a part that failed while the rest went through.
    pub failed_lines: Vec<String>,
    pub note: Option<String>,
}

#[server(endpoint = "/read_receipt")]
pub async fn read_receipt(id: String) -> Result<Option<Receipt>, ConsoleError> {
    let cx = crate::context::ConsoleContext::current()?;
    Ok(cx.receipts.get(&id))
}

/// Keeps `receipt` and sends the browser to `back` with its id, which works
/// the same for a form posted without JavaScript (a 302) and for a call from
/// the hydrated page (the router follows it).
#[cfg(feature = "ssr")]
pub fn finish(receipt: Receipt, back: &str) -> Result<(), ConsoleError> {
    let cx = crate::context::ConsoleContext::current()?;
    let id = cx.receipts.keep(receipt, std::time::Instant::now())?;
    let separator = if back.contains('?') { '&' } else { '?' };
    leptos_axum::redirect(&format!("{back}{separator}receipt={id}"));
    Ok(())
}
