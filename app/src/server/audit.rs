//! The audit: one record per attempt at a change, refused ones included.
//! The request pipeline opens a [`Draft`] for every call of a function that
//! is not a known read, before any check of the function's own runs, and
//! closes it with the answer, in the task that runs the call to its end
//! even when the client has gone. An attempt that reaches the admin API
//! is recorded once more *before* it is sent ([`Draft::sending`]), and the
//! client's changing calls take the proof of that record: no record, no
//! change, as Vault does it.
//!
//! Every record is bounded whoever sends it: the fields the function
//! takes, each cut short; a request refused before it reaches a function
//! carries no body at all. Refusals, wherever they happen, are counted
//! rather than written one by one past a rate (`refusal_count`), so no
//! client can make the file or the journal grow without end.

use std::collections::{BTreeMap, VecDeque};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde::Serialize;

use crate::audit_record::Asked;
pub use crate::audit_record::{AuditRecord, Outcome};
use crate::error::ConsoleError;
use crate::server::refusal_count::Refusals;
use crate::server::signing::unix_now;

/// How many records `/audit` shows: enough for a shift, bounded whatever
/// the traffic.
pub const KEPT: usize = 500;

/// A value in a record is a name, a state or a path; anything longer is cut.
pub const VALUE_LIMIT: usize = 256;

/// A reason is a sentence or two.
pub const REASON_LIMIT: usize = 512;

/// `text`, cut to `limit` characters with an ellipsis.
pub fn clipped(text: &str, limit: usize) -> String {
    if text.chars().count() <= limit {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(limit).collect();
    cut.push('…');
    cut
}

/// Proof that the record of a change about to be sent is written; the
/// admin API client's changing calls are only reachable with one.
#[derive(Debug)]
pub struct AuditWritten(());

/// The record of one call while it runs; handlers find it in the request.
#[derive(Clone, Debug)]
pub struct Draft(Arc<Mutex<DraftState>>);

#[derive(Debug)]
struct DraftState {
    /// Who, what, and the fields; outcome and reason are filled at the end.
    record: AuditRecord,
    /// "Drain gpu-h100-01", once the handler has checked what it was asked.
    description: Option<String>,
    outcome: Option<(Outcome, Option<String>)>,
    /// Its record as sent is written: llmgw was (or is being) asked.
    sent: bool,
}

impl Draft {
    /// Opens the record of an attempt: `record`'s outcome is replaced when
    /// it is written.
    pub fn open(record: AuditRecord) -> Self {
        Self(Arc::new(Mutex::new(DraftState {
            record,
            description: None,
            outcome: None,
            sent: false,
        })))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, DraftState> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds `key` to what the attempt was about.
    pub fn target(&self, key: &str, value: impl Serialize) {
        let value = serde_json::to_value(value).unwrap_or(serde_json::Value::Null);
        self.lock().record.target.insert(key.to_string(), value);
    }

    /// What the function was asked, as it checked it: carried typed to
    /// the journal with every record of this attempt written after.
    pub fn asked(&self, asked: Asked) {
        self.lock().record.asked = Some(asked);
    }

    /// What the operator asked for, in the console's words, for the receipt
    /// of a refusal that comes after this point.
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

    /// Writes the record of this attempt as sent, before it is: the proof
    /// is what the admin API client's changing calls take. When the record
    /// cannot be written, the change is refused.
    pub fn sending(&self, log: &AuditLog) -> Result<AuditWritten, ConsoleError> {
        let record = self.finished(Outcome::Sent, None, false);
        log.write(record).map_err(ConsoleError::AuditUnavailable)?;
        self.lock().sent = true;
        Ok(AuditWritten(()))
    }

    /// Whether llmgw was asked: the change may have been made.
    pub fn was_sent(&self) -> bool {
        self.lock().sent
    }

    /// The record of how the attempt ended.
    pub fn finished(
        &self,
        outcome: Outcome,
        reason: Option<String>,
        client_left: bool,
    ) -> AuditRecord {
        let mut record = self.lock().record.clone();
        record.time = rfc3339(unix_now());
        record.outcome = outcome;
        record.reason = reason.map(|r| clipped(&r, REASON_LIMIT));
        record.client_left = client_left;
        record
    }
}

/// Where records go: always the `audit` log target (which no `--log`
/// filter turns off), `--audit-log FILE` when given (appended, never
/// truncated, opened again on [`AuditLog::reopen`]), and the last [`KEPT`]
/// in memory for `/audit`.
#[derive(Debug)]
pub struct AuditLog {
    path: Option<PathBuf>,
    file: Option<Mutex<std::fs::File>>,
    recent: Mutex<VecDeque<AuditRecord>>,
    /// Records written since start: open audit pages read again when it moves.
    written: AtomicU64,
    /// Records written since start, by outcome (in `Outcome::ALL`'s order).
    by_outcome: [AtomicU64; 4],
    attempts: AtomicU64,
    refusals: Mutex<Refusals>,
    /// Every record, for the journal's database (when one is kept).
    pub journal: crate::server::journal::AttemptQueue,
}

fn open_append(path: &Path) -> Result<std::fs::File, String> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("cannot open the audit log {}: {e}", path.display()))
}

impl AuditLog {
    pub fn new(file: Option<&Path>) -> Result<Self, String> {
        Ok(Self {
            file: file.map(open_append).transpose()?.map(Mutex::new),
            path: file.map(Path::to_path_buf),
            recent: Mutex::new(VecDeque::with_capacity(KEPT)),
            written: AtomicU64::new(0),
            by_outcome: Default::default(),
            attempts: AtomicU64::new(0),
            refusals: Mutex::default(),
            journal: Default::default(),
        })
    }

    /// The number of a new attempt.
    pub fn next_attempt(&self) -> u64 {
        self.attempts.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Opens the file again under its name, so that it can be rotated from
    /// outside (moved away, then SIGHUP). Records keep going to the old
    /// file until the new one is open.
    pub fn reopen(&self) -> Result<(), String> {
        let (Some(path), Some(file)) = (&self.path, &self.file) else {
            return Ok(());
        };
        let fresh = open_append(path)?;
        *file.lock().unwrap_or_else(PoisonError::into_inner) = fresh;
        Ok(())
    }

    /// Writes `record` everywhere it goes. The error says why the file could
    /// not take it; the log and `/audit` still have it. A refusal is
    /// counted first (see `refusal_count`): it may be written later, in a
    /// record that counts it.
    pub fn write(&self, record: AuditRecord) -> Result<(), String> {
        if record.outcome == Outcome::Refused {
            self.refused(record);
            return Ok(());
        }
        self.write_due_repeats(unix_now());
        self.write_now(record)
    }

    fn write_now(&self, record: AuditRecord) -> Result<(), String> {
        let line = serde_json::to_string(&record)
            .unwrap_or_else(|e| format!(r#"{{"error":"unencodable audit record: {e}"}}"#));
        tracing::info!(target: "audit", "{line}");
        self.journal.push(unix_now() as i64, &record);
        let mut outcome = Ok(());
        if let Some(file) = &self.file {
            let mut file = file.lock().unwrap_or_else(PoisonError::into_inner);
            if let Err(e) = writeln!(file, "{line}") {
                tracing::error!(target: "audit", error = %e, "the audit log cannot be written");
                outcome = Err(e.to_string());
            }
        }
        let mut recent = self.recent.lock().unwrap_or_else(PoisonError::into_inner);
        if recent.len() == KEPT {
            recent.pop_front();
        }
        let kind = Outcome::ALL.iter().position(|o| *o == record.outcome);
        recent.push_back(record);
        self.written.fetch_add(1, Ordering::Relaxed);
        if let Some(counter) = kind.and_then(|i| self.by_outcome.get(i)) {
            counter.fetch_add(1, Ordering::Relaxed);
        }
        outcome
    }

    /// A request refused before it reached its function (another site, a
    /// name this console does not answer to, too large, the wrong method):
    /// counted as every refusal is.
    pub fn refused_early(&self, mut record: AuditRecord) {
        record.reason = record.reason.map(|r| clipped(&r, REASON_LIMIT));
        self.refused(record);
    }

    fn refused(&self, record: AuditRecord) {
        let now = unix_now();
        let now_written = {
            let mut refusals = self.refusals.lock().unwrap_or_else(PoisonError::into_inner);
            let mut out = refusals.due(now);
            out.extend(refusals.take(record, now));
            out
        };
        self.write_numbered(now_written);
    }

    /// Writes the counts of every second, and the summaries of every
    /// minute, that have ended.
    pub fn write_due_repeats(&self, now: u64) {
        let due = self
            .refusals
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .due(now);
        self.write_numbered(due);
    }

    /// Writes every refusal still being counted: as the console stops.
    pub fn flush(&self) {
        let all = self
            .refusals
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .all();
        self.write_numbered(all);
    }

    /// Writes `records`, each with an attempt number of its own when it has
    /// none yet (a refusal before its function ran).
    fn write_numbered(&self, records: Vec<AuditRecord>) {
        for mut record in records {
            if record.attempt == 0 {
                record.attempt = self.next_attempt();
            }
            let _ = self.write_now(record);
        }
    }

    /// Records written since start, by outcome.
    pub fn written_by_outcome(&self) -> impl Iterator<Item = (Outcome, u64)> + '_ {
        Outcome::ALL
            .into_iter()
            .zip(&self.by_outcome)
            .map(|(o, n)| (o, n.load(Ordering::Relaxed)))
    }

    pub fn written(&self) -> u64 {
        self.written.load(Ordering::Relaxed)
    }

    /// Newest first.
    pub fn recent(&self) -> Vec<AuditRecord> {
        let recent = self.recent.lock().unwrap_or_else(PoisonError::into_inner);
        recent.iter().rev().cloned().collect()
    }
}

/// `secs` since the Unix epoch as RFC 3339 UTC ("2026-11-30T17:04:03Z").
pub fn rfc3339(secs: u64) -> String {
    crate::format::rfc3339(secs as i64)
}

/// A record of `action` by nobody in particular, for tests and for what
/// the pipeline fills in.
pub fn blank_record(action: &str) -> AuditRecord {
    AuditRecord {
        attempt: 0,
        time: rfc3339(unix_now()),
        cluster: None,
        actor: String::new(),
        user: None,
        peer: None,
        action: action.to_string(),
        target: BTreeMap::new(),
        outcome: Outcome::Refused,
        reason: None,
        times: 1,
        client_left: false,
        asked: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A change that went through: written on its own, never counted.
    fn record(n: usize) -> AuditRecord {
        AuditRecord {
            time: rfc3339(0),
            actor: format!("op{n}"),
            outcome: Outcome::Done,
            ..blank_record("set_node_state")
        }
    }

    #[test]
    fn times_are_utc_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_796_058_243), "2026-11-30T17:04:03Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
    }

    fn temp_file(name: &str) -> PathBuf {
        let path = std::env::temp_dir().join(format!("llmgw-{name}-{}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        path
    }

    #[test]
    fn memory_keeps_the_newest_and_the_file_keeps_everything() {
        let path = temp_file("audit-kept");
        std::fs::write(&path, "earlier line\n").expect("writable");
        let log = AuditLog::new(Some(&path)).expect("opens");
        for n in 0..KEPT + 3 {
            log.write(record(n)).expect("written");
        }
        let recent = log.recent();
        assert_eq!(recent.len(), KEPT);
        assert_eq!(recent[0].actor, format!("op{}", KEPT + 2));
        let text = std::fs::read_to_string(&path).expect("readable");
        assert_eq!(text.lines().count(), KEPT + 4, "appended, never truncated");
        let last: AuditRecord =
            serde_json::from_str(text.lines().last().expect("a line")).expect("one JSON record");
        assert_eq!(last, record(KEPT + 2));
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn identical_early_refusals_in_a_second_are_one_record_with_a_count() {
        let log = AuditLog::new(None).expect("opens");
        let refusal = |peer: &str| AuditRecord {
            peer: Some(peer.into()),
            reason: Some("another site sent it".into()),
            ..blank_record("set_node_state")
        };
        let now = unix_now();
        for _ in 0..500 {
            log.refused_early(refusal("10.0.0.1"));
        }
        log.refused_early(refusal("10.0.0.2"));
        // A second may have turned during the loop: at most two windows.
        log.write_due_repeats(now + 5);
        let recent = log.recent();
        assert!(recent.len() <= 5, "{recent:?}");
        let from_one: u64 = recent
            .iter()
            .filter(|r| r.peer.as_deref() == Some("10.0.0.1"))
            .map(|r| r.times.max(1))
            .sum();
        assert_eq!(from_one, 500, "every refusal is counted");
        assert!(recent.iter().any(|r| r.peer.as_deref() == Some("10.0.0.2")));
    }

    #[test]
    fn refusals_inside_a_function_are_counted_too() {
        let log = AuditLog::new(None).expect("opens");
        let now = unix_now();
        for attempt in 1..=1_000 {
            log.write(AuditRecord {
                attempt,
                peer: Some("10.0.0.1".into()),
                reason: Some("this console is read-only".into()),
                ..blank_record("set_node_state")
            })
            .expect("counted");
        }
        log.write_due_repeats(now + 5);
        let recent = log.recent();
        assert!(recent.len() <= 3, "{recent:?}");
        assert_eq!(recent.iter().map(|r| r.times.max(1)).sum::<u64>(), 1_000);
    }

    #[test]
    fn a_change_is_not_sent_when_its_record_cannot_be_written() {
        // Linux's full device takes an open and refuses every write.
        let log = AuditLog::new(Some(Path::new("/dev/full"))).expect("opens");
        let draft = Draft::open(blank_record("set_node_state"));
        assert!(matches!(
            draft.sending(&log),
            Err(ConsoleError::AuditUnavailable(_))
        ));
        let ok = AuditLog::new(None).expect("opens");
        assert!(draft.sending(&ok).is_ok());
        assert_eq!(ok.recent()[0].outcome, Outcome::Sent);
    }

    #[test]
    fn a_rotated_file_is_reopened_under_its_name() {
        let path = temp_file("audit-rotated");
        let moved = temp_file("audit-rotated.1");
        let log = AuditLog::new(Some(&path)).expect("opens");
        log.write(record(1)).expect("written");
        std::fs::rename(&path, &moved).expect("moved away");
        log.write(record(2)).expect("written to the moved file");
        log.reopen().expect("reopens");
        log.write(record(3)).expect("written to the new file");
        let lines = |p: &Path| {
            std::fs::read_to_string(p)
                .expect("readable")
                .lines()
                .count()
        };
        assert_eq!(lines(&moved), 2);
        assert_eq!(lines(&path), 1);
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_file(&moved);
    }
}
