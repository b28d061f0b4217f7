//! The audit: one record per attempt at a change, refused ones included.
//! The router opens a [`Draft`] for every server function call that is not
//! a known read, before any check runs, and closes it with the answer; so a
//! server function added later is audited without anyone adding a line.
//! Handlers only make the record more precise (what exactly was targeted,
//! how the admin API answered).

use std::collections::{BTreeMap, VecDeque};
use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

use serde::Serialize;

pub use crate::audit_record::{AuditRecord, Outcome};

/// How many records `/audit` shows: enough for a shift, bounded whatever
/// the traffic (a record is a few hundred bytes; a collection's paths more).
pub const KEPT: usize = 500;

/// The record of one call while it runs; handlers find it in the request.
#[derive(Clone, Debug, Default)]
pub struct Draft(Arc<Mutex<DraftState>>);

#[derive(Debug, Default)]
struct DraftState {
    /// "Drain gpu-h100-01", once the handler has checked what it was asked.
    description: Option<String>,
    target: BTreeMap<String, serde_json::Value>,
    outcome: Option<(Outcome, Option<String>)>,
}

impl Draft {
    fn lock(&self) -> std::sync::MutexGuard<'_, DraftState> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds `key` to what the attempt was about.
    pub fn target(&self, key: &str, value: impl Serialize) {
        let value = serde_json::to_value(value).unwrap_or(serde_json::Value::Null);
        self.lock().target.insert(key.to_string(), value);
    }

    /// What the operator asked for, in their words, for the receipt of a
    /// refusal that comes after this point.
    pub fn describe(&self, description: impl Into<String>) {
        self.lock().description = Some(description.into());
    }

    pub fn description(&self) -> Option<String> {
        self.lock().description.clone()
    }

    /// The outcome as the handler saw it: an action that reached the admin
    /// API and failed still answers with a redirect and a receipt.
    pub fn outcome(&self, outcome: Outcome, reason: Option<String>) {
        self.lock().outcome = Some((outcome, reason));
    }

    /// What the handler recorded, if it got that far.
    pub fn recorded_outcome(&self) -> Option<(Outcome, Option<String>)> {
        self.lock().outcome.clone()
    }

    pub fn take_target(&self) -> BTreeMap<String, serde_json::Value> {
        std::mem::take(&mut self.lock().target)
    }
}

/// Where records go: always the `audit` log target (which no `--log`
/// filter turns off), `--audit-log FILE` when given (appended, never
/// truncated), and the last [`KEPT`] in memory for `/audit`.
#[derive(Debug)]
pub struct AuditLog {
    file: Option<Mutex<std::fs::File>>,
    recent: Mutex<VecDeque<AuditRecord>>,
    /// Records written since start: open audit pages read again when it moves.
    written: std::sync::atomic::AtomicU64,
}

impl AuditLog {
    pub fn new(file: Option<&std::path::Path>) -> Result<Self, String> {
        let file = match file {
            Some(path) => Some(Mutex::new(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(|e| format!("cannot open the audit log {}: {e}", path.display()))?,
            )),
            None => None,
        };
        Ok(Self {
            file,
            recent: Mutex::new(VecDeque::with_capacity(KEPT)),
            written: std::sync::atomic::AtomicU64::new(0),
        })
    }

    pub fn write(&self, record: AuditRecord) {
        let line = serde_json::to_string(&record)
            .unwrap_or_else(|e| format!(r#"{{"error":"unencodable audit record: {e}"}}"#));
        tracing::info!(target: "audit", "{line}");
        if let Some(file) = &self.file {
            let mut file = file.lock().unwrap_or_else(PoisonError::into_inner);
            if let Err(e) = writeln!(file, "{line}") {
                tracing::error!(target: "audit", error = %e, "the audit log cannot be written");
            }
        }
        let mut recent = self.recent.lock().unwrap_or_else(PoisonError::into_inner);
        if recent.len() == KEPT {
            recent.pop_front();
        }
        recent.push_back(record);
        self.written
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    pub fn written(&self) -> u64 {
        self.written.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Newest first.
    pub fn recent(&self) -> Vec<AuditRecord> {
        let recent = self.recent.lock().unwrap_or_else(PoisonError::into_inner);
        recent.iter().rev().cloned().collect()
    }
}

/// `secs` since the Unix epoch as RFC 3339 UTC ("2026-11-30T17:04:03Z").
pub fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(n: usize) -> AuditRecord {
        AuditRecord {
            time: rfc3339(0),
            actor: format!("op{n}"),
            user: None,
            peer: None,
            action: "set_node_state".into(),
            target: BTreeMap::new(),
            outcome: Outcome::Refused,
            reason: Some("read-only".into()),
        }
    }

    #[test]
    fn times_are_utc_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_796_058_243), "2026-11-30T17:04:03Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn memory_keeps_the_newest_and_the_file_keeps_everything() {
        let dir = std::env::temp_dir().join(format!("llmgw-audit-{}", std::process::id()));
        let _ = std::fs::remove_file(&dir);
        std::fs::write(&dir, "earlier line\n").expect("writable");
        let log = AuditLog::new(Some(&dir)).expect("opens");
        for n in 0..KEPT + 3 {
            log.write(record(n));
        }
        let recent = log.recent();
        assert_eq!(recent.len(), KEPT);
        assert_eq!(recent[0].actor, format!("op{}", KEPT + 2));
        let text = std::fs::read_to_string(&dir).expect("readable");
        assert_eq!(text.lines().count(), KEPT + 4, "appended, never truncated");
        let last: AuditRecord =
            serde_json::from_str(text.lines().last().expect("a line")).expect("one JSON record");
        assert_eq!(last, record(KEPT + 2));
        let _ = std::fs::remove_file(&dir);
    }
}
