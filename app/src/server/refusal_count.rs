//! How refusals reach the audit: counted, so that no client can make the
//! audit file and the journal grow without end. A change that goes out is
//! always recorded on its own; a refusal changed nothing, and what matters
//! of a flood of them is what was refused, why, from where, and how many.
//!
//! - Identical refusals (same address, action and reason) within a second
//!   are one record with a count, written when the second ends.
//! - Refusals of a new kind are written one by one at most [`BURST`] at
//!   once, then one a second ([`PER_SECOND`]); past that they are counted
//!   by action and reason, with the first few addresses, and written as
//!   one summary a minute ([`SUMMARY_EVERY`]) that says it summarises.
//! - At most [`DAILY`] refusal records a day (UTC) are written; past that
//!   every refusal is summarised, one summary an hour of each kind
//!   ([`SUMMARY_PAST_DAILY`]), which says so. So a flood that lasts for
//!   days grows the file and the journal by a bounded amount a day.
//!
//! The counts add up: every refusal is in exactly one record's `times`.

use std::collections::HashMap;

use crate::audit_record::AuditRecord;

/// Refusals written one by one in a burst, before the rate holds.
pub const BURST: f64 = 100.0;

/// Refusals of a new kind written one by one, a second, past the burst.
pub const PER_SECOND: f64 = 1.0;

/// How long refusals past the rate are gathered into one summary.
pub const SUMMARY_EVERY: u64 = 60;

/// Refusal records written in a day, past which every refusal is summarised.
pub const DAILY: u64 = 10_000;

/// How long refusals are gathered into one summary once [`DAILY`] is spent.
pub const SUMMARY_PAST_DAILY: u64 = 3_600;

/// Addresses a summary names; the rest are counted.
const SUMMARY_PEERS: usize = 8;

/// Peers whose repeated refusals are counted at once; past this the counts
/// are written out and counting starts again.
const COUNTED_PEERS: usize = 256;

/// Kinds of refusal summarised at once; past this they share one summary.
const SUMMARIES: usize = 64;

/// What a summary of refusals past [`SUMMARIES`] kinds is about.
const OTHER_REFUSALS: &str = "other refusals";

#[derive(Debug)]
struct Repeats {
    second: u64,
    /// Refusals after the first one in `second`, not yet written.
    more: u64,
    record: AuditRecord,
}

#[derive(Debug)]
struct Summary {
    since: u64,
    count: u64,
    peers: Vec<String>,
    /// Refusals from addresses past the first [`SUMMARY_PEERS`].
    from_others: u64,
    /// Begun once the day's records were spent: gathered for an hour.
    past_daily: bool,
    record: AuditRecord,
}

#[derive(Debug)]
pub struct Refusals {
    repeats: HashMap<Key, Repeats>,
    /// Records that may still be written one by one, and when it was last
    /// topped up.
    bucket: f64,
    bucket_at: u64,
    summaries: HashMap<(String, String), Summary>,
    /// The day (UTC, days since 1970) and the records written in it.
    day: u64,
    written_today: u64,
}

impl Default for Refusals {
    fn default() -> Self {
        Self {
            repeats: HashMap::new(),
            bucket: BURST,
            bucket_at: 0,
            summaries: HashMap::new(),
            day: 0,
            written_today: 0,
        }
    }
}

/// What makes two refusals the same: who (address, and the user a proxy
/// named), in which cluster, of what, and why.
type Key = (String, String, String, String, String);

fn key_of(record: &AuditRecord) -> Key {
    (
        record.peer.clone().unwrap_or_default(),
        record.user.clone().unwrap_or_default(),
        record.cluster.clone().unwrap_or_default(),
        record.action.clone(),
        record.reason.clone().unwrap_or_default(),
    )
}

impl Refusals {
    /// Takes in one refusal at `now` (seconds): what is to be written now
    /// (it, or nothing; and the counts of every peer, when too many were
    /// being counted).
    pub fn take(&mut self, record: AuditRecord, now: u64) -> Vec<AuditRecord> {
        let out = self.take_counting(record, now);
        self.wrote(&out, now)
    }

    /// Counts `records` in the day's records, as they go to be written.
    fn wrote(&mut self, records: &[AuditRecord], now: u64) -> Vec<AuditRecord> {
        let day = now / 86_400;
        if day != self.day {
            self.day = day;
            self.written_today = 0;
        }
        self.written_today += records.len() as u64;
        records.to_vec()
    }

    /// Whether the day's refusal records are spent.
    fn spent(&self, now: u64) -> bool {
        now / 86_400 == self.day && self.written_today >= DAILY
    }

    fn take_counting(&mut self, record: AuditRecord, now: u64) -> Vec<AuditRecord> {
        let key = key_of(&record);
        if let Some(counted) = self.repeats.get_mut(&key)
            && counted.second == now
        {
            counted.more += 1;
            return Vec::new();
        }
        if let Some(summary) = self.summaries.get_mut(&(key.3.clone(), key.4.clone())) {
            summary.add(&key.0);
            return Vec::new();
        }
        let elapsed = now.saturating_sub(self.bucket_at) as f64;
        self.bucket = (self.bucket + elapsed * PER_SECOND).min(BURST);
        self.bucket_at = now;
        if self.bucket < 1.0 || self.spent(now) {
            self.summarise(record, now);
            return Vec::new();
        }
        self.bucket -= 1.0;
        let mut out = Vec::new();
        if self.repeats.len() >= COUNTED_PEERS {
            out.extend(self.repeats.drain().filter_map(|(_, r)| r.written()));
        }
        let counting = Repeats {
            second: now,
            more: 0,
            record: record.clone(),
        };
        // One counted for another second (a clock set back) is written,
        // not lost.
        if let Some(before) = self.repeats.insert(key, counting) {
            out.extend(before.written());
        }
        out.push(record);
        out
    }

    fn summarise(&mut self, record: AuditRecord, now: u64) {
        let peer = record.peer.clone().unwrap_or_default();
        let mut kind = (
            record.action.clone(),
            record.reason.clone().unwrap_or_default(),
        );
        if !self.summaries.contains_key(&kind) && self.summaries.len() >= SUMMARIES {
            kind = (String::new(), OTHER_REFUSALS.to_string());
        }
        let past_daily = self.spent(now);
        self.summaries
            .entry(kind)
            .or_insert_with(|| Summary {
                since: now,
                count: 0,
                peers: Vec::new(),
                from_others: 0,
                past_daily,
                record,
            })
            .add(&peer);
    }

    /// Every record still being counted, as the console stops: no refusal
    /// goes unwritten.
    pub fn all(&mut self) -> Vec<AuditRecord> {
        let mut out: Vec<AuditRecord> = self
            .repeats
            .drain()
            .filter_map(|(_, r)| r.written())
            .collect();
        let now = crate::server::signing::unix_now();
        out.extend(self.summaries.drain().map(|(k, s)| s.written(now, &k.1)));
        out
    }

    /// The records whose counting has ended by `now`: the counts of
    /// seconds past, and the summaries of minutes past.
    pub fn due(&mut self, now: u64) -> Vec<AuditRecord> {
        if self.repeats.is_empty() && self.summaries.is_empty() {
            return Vec::new();
        }
        let out = self.due_counting(now);
        self.wrote(&out, now)
    }

    fn due_counting(&mut self, now: u64) -> Vec<AuditRecord> {
        let mut out = Vec::new();
        let ended: Vec<_> = self
            .repeats
            .iter()
            .filter(|(_, r)| r.second < now)
            .map(|(k, _)| k.clone())
            .collect();
        for key in ended {
            out.extend(self.repeats.remove(&key).and_then(Repeats::written));
        }
        let ended: Vec<_> = self
            .summaries
            .iter()
            .filter(|(_, s)| s.since + s.every() <= now)
            .map(|(k, _)| k.clone())
            .collect();
        for key in ended {
            out.extend(self.summaries.remove(&key).map(|s| s.written(now, &key.1)));
        }
        out
    }
}

impl Repeats {
    /// The record of the refusals after the first, if there were any: an
    /// attempt number of its own, not the first one's.
    fn written(self) -> Option<AuditRecord> {
        (self.more > 0).then_some(AuditRecord {
            attempt: 0,
            times: self.more,
            ..self.record
        })
    }
}

impl Summary {
    fn every(&self) -> u64 {
        if self.past_daily {
            SUMMARY_PAST_DAILY
        } else {
            SUMMARY_EVERY
        }
    }

    fn add(&mut self, peer: &str) {
        self.count += 1;
        if self.peers.iter().any(|p| p == peer) {
            return;
        }
        if self.peers.len() < SUMMARY_PEERS {
            self.peers.push(peer.to_string());
        } else {
            self.from_others += 1;
        }
    }

    fn written(self, now: u64, reason: &str) -> AuditRecord {
        let mut from = self.peers.join(", ");
        if self.from_others > 0 {
            from.push_str(&format!(" and others ({} refusals)", self.from_others));
        }
        // Of many attempts, by whoever sent them: no one's name, node or
        // number is the summary's.
        let mut record = self.record;
        record.attempt = 0;
        record.user = None;
        record.target.clear();
        record.client_left = false;
        record.times = self.count;
        let past = if self.past_daily {
            format!("once the day's {DAILY} refusal records were written")
        } else {
            "past the audit's rate".to_string()
        };
        record.reason = Some(format!(
            "{reason} (summarised: {} refusals like it in {} s {past}, from {from})",
            self.count,
            now.saturating_sub(self.since)
        ));
        if reason == OTHER_REFUSALS {
            record.action = OTHER_REFUSALS.to_string();
        }
        record
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::audit::blank_record;

    fn refusal(peer: &str, reason: &str) -> AuditRecord {
        AuditRecord {
            peer: Some(peer.into()),
            reason: Some(reason.into()),
            ..blank_record("set_node_state")
        }
    }

    /// Every refusal of `sent`, as the records written say: their `times`.
    fn counted(records: &[AuditRecord]) -> u64 {
        assert!(
            records.iter().all(|r| r.times >= 1),
            "a record counts one at least"
        );
        records.iter().map(|r| r.times).sum()
    }

    #[test]
    fn a_flood_of_any_shape_is_a_bounded_number_of_records_that_count_every_refusal() {
        let mut refusals = Refusals::default();
        let mut written = Vec::new();
        // 20,000 refusals over 60 s, from 80 addresses, of 5 reasons, each
        // reason new to its address now and then.
        let mut sent = 0;
        for second in 0..60_u64 {
            for i in 0..334_u64 {
                let peer = format!("10.0.0.{}", i % 80);
                let reason = format!("reason {}", (i + second) % 5);
                written.extend(refusals.due(1_000 + second));
                written.extend(refusals.take(refusal(&peer, &reason), 1_000 + second));
                sent += 1;
            }
        }
        written.extend(refusals.due(1_000 + 60 + SUMMARY_EVERY));
        assert_eq!(counted(&written), sent, "every refusal is counted once");
        assert!(written.len() < 400, "{} records", written.len());
        let summaries: Vec<_> = written
            .iter()
            .filter(|r| {
                r.reason
                    .as_deref()
                    .is_some_and(|r| r.contains("summarised"))
            })
            .collect();
        assert!(!summaries.is_empty());
        assert!(
            summaries
                .iter()
                .all(|r| r.reason.as_deref().is_some_and(|r| r.contains("10.0.0."))),
            "a summary says where from"
        );
    }

    #[test]
    fn identical_refusals_in_a_second_are_one_record_with_a_count() {
        let mut refusals = Refusals::default();
        let mut written = Vec::new();
        for _ in 0..500 {
            written.extend(refusals.take(refusal("10.0.0.1", "read-only"), 7));
        }
        written.extend(refusals.take(refusal("10.0.0.2", "read-only"), 7));
        assert_eq!(written.len(), 2, "the first of each at once");
        written.extend(refusals.due(8));
        assert_eq!(written.len(), 3);
        assert_eq!(written[2].times, 499);
        assert_eq!(counted(&written), 501);
    }

    #[test]
    fn refusals_of_other_users_or_nodes_are_never_credited_to_the_first() {
        let mut refusals = Refusals::default();
        let by = |user: &str, node: &str| {
            let mut r = refusal("10.0.0.1", "read-only");
            r.user = Some(user.into());
            r.attempt = 9;
            r.target.insert("node".into(), node.into());
            r
        };
        let mut written = refusals.take(by("ana", "n1"), 3);
        written.extend(refusals.take(by("bob", "n2"), 3));
        written.extend(refusals.take(by("bob", "n2"), 3));
        written.extend(refusals.due(4));
        let users: Vec<_> = written.iter().map(|r| r.user.clone()).collect();
        assert_eq!(users.len(), 3, "{written:?}");
        assert_eq!(
            users.iter().filter(|u| u.as_deref() == Some("ana")).count(),
            1
        );
        assert_eq!(written[2].attempt, 0, "a count has a number of its own");
        // Past the rate, a summary names no one's node or user.
        let mut flood = Refusals::default();
        let mut written = Vec::new();
        for i in 0..(BURST as usize + 10) {
            written.extend(flood.take(by(&format!("u{i}"), &format!("n{i}")), 3));
        }
        written.extend(flood.all());
        let summary = written.last().expect("a summary");
        assert_eq!(
            (summary.user.clone(), summary.target.is_empty()),
            (None, true)
        );
        assert_eq!(counted(&written), (BURST as usize + 10) as u64);
    }

    #[test]
    fn many_kinds_past_the_rate_share_one_summary() {
        let mut refusals = Refusals::default();
        let mut written = Vec::new();
        for i in 0..(BURST as usize + SUMMARIES + 50) {
            written.extend(refusals.take(refusal("10.0.0.1", &format!("why {i}")), 5));
        }
        written.extend(refusals.due(5 + SUMMARY_EVERY));
        assert_eq!(counted(&written), (BURST as usize + SUMMARIES + 50) as u64);
        assert_eq!(written.len(), BURST as usize + SUMMARIES + 1);
        assert!(written.iter().any(|r| r.action == OTHER_REFUSALS));
    }

    #[test]
    fn a_flood_that_lasts_a_day_writes_a_bounded_number_of_records() {
        let mut refusals = Refusals::default();
        let mut written = 0_usize;
        let mut counted_all = 0_u64;
        let mut sent = 0_u64;
        let start = 86_400 * 20_000;
        // Every second of a day, three refusals of a kind new each time
        // (another reason, another address): the most the rate lets by.
        for second in 0..86_400_u64 {
            let now = start + second;
            let mut out = refusals.due(now);
            for i in 0..3 {
                let why = format!("why {}", (second * 3 + i) % 50);
                out.extend(refusals.take(refusal(&format!("10.{i}.0.1"), &why), now));
                sent += 1;
            }
            written += out.len();
            counted_all += counted(&out);
        }
        let rest = refusals.all();
        written += rest.len();
        counted_all += counted(&rest);
        assert_eq!(counted_all, sent, "every refusal is counted once");
        // The day's records, then one summary an hour of each kind.
        let bound = DAILY as usize + 24 * (SUMMARIES + 1) + 100;
        assert!(written <= bound, "{written} records of {sent} refusals");
        // The next day the rate writes one by one again.
        let tomorrow = start + 86_400 + 5;
        let next = refusals.take(refusal("10.9.0.1", "tomorrow"), tomorrow);
        assert_eq!(next.len(), 1);
    }
}
