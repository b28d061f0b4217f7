//! What an action did, kept briefly on the server so that the page it
//! returns to can show it, with or without JavaScript: the action redirects
//! to `?receipt=ID` and the page reads the receipt back.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::error::ConsoleError;
use crate::server_fns::actions::Receipt;

const KEEP: Duration = Duration::from_secs(600);

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
