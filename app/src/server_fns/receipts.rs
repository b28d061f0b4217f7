//! What an action did, for the page it returns to. An action keeps its
//! receipt briefly on the server and sends the browser to `back?receipt=ID`,
//! which works the same for a form posted without JavaScript (a redirect)
//! and for a call from the hydrated page (the router follows it); the page
//! then reads the receipt back.

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
    ssr::read(&id)
}

#[cfg(feature = "ssr")]
pub use ssr::{Receipts, finish};

#[cfg(feature = "ssr")]
mod ssr {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    use super::*;
    use crate::server::input::ReturnPath;
    use crate::urls;

    /// Long enough to read after a slow redirect, short enough that nobody
    /// mistakes an old outcome for a new one.
    const KEEP: Duration = Duration::from_secs(600);

    /// Receipts of recent actions, by id. The router provides one per console.
    #[derive(Default)]
    pub struct Receipts {
        kept: Mutex<HashMap<String, (Receipt, Instant)>>,
    }

    impl std::fmt::Debug for Receipts {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("Receipts")
        }
    }

    impl Receipts {
        pub fn keep(&self, receipt: Receipt, now: Instant) -> Result<String, ConsoleError> {
            let mut bytes = [0u8; 12];
            getrandom::fill(&mut bytes)
                .map_err(|e| ConsoleError::Internal(format!("no randomness for a receipt: {e}")))?;
            let id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            let mut kept = self.lock();
            kept.retain(|_, (_, at)| now.saturating_duration_since(*at) < KEEP);
            kept.insert(id.clone(), (receipt, now));
            Ok(id)
        }

        pub fn get(&self, id: &str) -> Option<Receipt> {
            self.lock().get(id).map(|(r, _)| r.clone())
        }

        fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Receipt, Instant)>> {
            self.kept
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        }
    }

    fn store() -> Result<Arc<Receipts>, ConsoleError> {
        use_context::<Arc<Receipts>>()
            .ok_or_else(|| ConsoleError::Internal("the receipts store is missing".into()))
    }

    pub fn read(id: &str) -> Result<Option<Receipt>, ConsoleError> {
        Ok(store()?.get(id))
    }

    /// How every action finishes: keeps `receipt` and sends the browser back
    /// to `back`, checked before the action ran, with the receipt's id.
    pub fn finish(receipt: Receipt, back: &ReturnPath) -> Result<(), ConsoleError> {
        let id = store()?.keep(receipt, Instant::now())?;
        leptos_axum::redirect(&urls::with_params(back.as_str(), &[("receipt", &id)]));
        Ok(())
    }
}
