//! The task that keeps the journal: each period it takes what the shared
//! poll last read of every cluster, and writes what changed since the read
//! before. While pages are open that read is theirs and costs llmgw
//! nothing more; while none is, the recorder asks for one itself, every
//! `--record-seconds`, so that the record has no holes.
//!
//! Of several consoles on one database only the holder of the lease
//! writes (see `llmgw_journal::lease`): nothing is recorded twice, and
//! another console takes over when the holder stops, dies, or is cut off.
//! Each period is the same loop: observe every cluster, diff against the
//! last reading, write the outbox (`llmgw_journal::outbox`) under the
//! lease, prune when due; the leadership (`llmgw_journal::leadership`) is
//! told what the lease is.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use super::shared::Journal;
use super::transitions::{Reading, ToFind, between, found, gone_unseen};
use crate::format::ModelStatus;
use crate::server::audit::AuditLog;
use crate::server::clusters::Cluster;
use crate::server::signing::unix_now;
use llmgw_journal::event::Event;
use llmgw_journal::leadership::{Lead, Term};
use llmgw_journal::lease::{Period, Presence};
use llmgw_journal::outbox::{AttemptBatches, Outbox, Resent, Settled};
use llmgw_journal::record::{EventKind, JournalEvent};
use llmgw_journal::since::BRIDGED_GAP;
use llmgw_journal::store::{JournalStore, LastWrite, StoreError};
use llmgw_journal::trends;

/// Records waiting for a database that was down, at most: past this they
/// are dropped, the log says how many, and recording starts again from the
/// states it finds (dropping only the oldest could drop the findings the
/// rest are dated from). A period's own records are never cut.
const PENDING_LIMIT: usize = 100_000;

/// How long attempts gather before they are written: a burst of them is
/// one transaction.
const ATTEMPTS_GATHER: Duration = Duration::from_millis(200);

/// Records the since index takes in at a time: a burst (a cluster that
/// changes wholesale, a flood of attempts) is read in parts, so that it
/// never sits in memory whole.
const FOLLOW_BATCH: u32 = 2_000;

/// A database that does not answer is tried again at least this often.
const RETRY_AT_MOST: Duration = Duration::from_secs(10);

/// How often old records are pruned.
const PRUNE_EVERY: Duration = Duration::from_secs(3600);

pub struct Recorder {
    /// The database's URL; opened (and opened again) by the recorder, so a
    /// database down at start holds up nothing else.
    pub url: String,
    /// This console, for the lease.
    pub holder: String,
    /// How often to read a cluster nobody looks at.
    pub record_every: Duration,
    /// How long records are kept.
    pub retain: Duration,
    /// What pages read: the database's health, the store, the since index.
    pub journal: Arc<Journal>,
    /// Whose attempts to write: this console's.
    pub audit: Arc<AuditLog>,
    /// Told when the console stops: the recorder writes what waits and
    /// lets the lease go, so that another console records at once.
    pub stop: Arc<tokio::sync::Notify>,
}

/// What the recorder knows of one cluster between two periods.
struct Followed {
    cluster: Arc<Cluster>,
    last: Option<Reading>,
    /// The lists whose states are yet to be found for the record to start
    /// from (see `transitions::found`), and whether the record resumed
    /// after a short gap (only what differs is found).
    to_find: ToFind,
    resumed: bool,
    /// When recording of it last started.
    started_at: i64,
    /// The record's last write of it as this console's waiting records
    /// of it expect to find it, or they are not written: this console's
    /// own last write, or the one found when recording of it started
    /// (`Some(None)`: none). `None` when the database has never said: a
    /// start whose read failed keeps what was known before it.
    expect: Option<Option<LastWrite>>,
    /// When the wall's figures were last kept for the trends.
    sampled_at: i64,
}

/// What the recorder carries from one period to the next.
struct Round {
    followed: Vec<Followed>,
    /// Records seen and not yet written.
    outbox: Outbox,
    /// Whether this console held the lease at its last period.
    leading: bool,
    presence: Presence,
    /// Until when this console's lease holds, by its own clock, counted
    /// from before it last asked.
    valid_until: i64,
    pruned_at: Option<std::time::Instant>,
    /// How long a lease lasts, in seconds.
    lease: i64,
    /// This console's attempts on their way to the journal.
    attempts: AttemptBatches,
}

impl Round {
    /// Past `limit` records waiting for the database, all of them go
    /// (see [`PENDING_LIMIT`]) and recording of every cluster starts again
    /// from what it finds. Says how many went.
    fn shed_past(&mut self, limit: usize) -> Option<usize> {
        let dropped = self.outbox.shed_past(limit)?;
        for f in &mut self.followed {
            f.last = None;
        }
        Some(dropped)
    }

    /// The ids of the clusters it follows.
    fn cluster_ids(&self) -> Vec<&str> {
        self.followed
            .iter()
            .map(|f| f.cluster.tag.id.as_str())
            .collect()
    }

    /// Each cluster's last write as its waiting records expect to find
    /// it, where that is known (see [`Followed::expect`]).
    fn expected(&self) -> Vec<(&str, Option<LastWrite>)> {
        self.followed
            .iter()
            .filter_map(|f| Some((f.cluster.tag.id.as_str(), f.expect.clone()?)))
            .collect()
    }

    /// Every cluster written by `holder` up to `at`.
    fn written(&mut self, holder: &str, at: i64) {
        for f in &mut self.followed {
            f.expect = Some(Some(LastWrite {
                until: at,
                by: Some(holder.to_string()),
            }));
        }
    }

    /// What waits, as a period of `clusters` (these ids) up to `at`.
    fn period<'a>(
        &'a self,
        clusters: &'a [&'a str],
        expected: &'a [(&'a str, Option<LastWrite>)],
        at: i64,
        samples: &'a [(String, llmgw_journal::Sample)],
    ) -> Period<'a> {
        Period {
            events: self.outbox.waiting(),
            clusters,
            at,
            samples,
            expected,
        }
    }
}

impl Recorder {
    /// Runs until the console stops. `period` is the shared poll's.
    pub async fn run(self, clusters: Vec<Arc<Cluster>>, period: Duration) {
        let store = tokio::select! {
            store = self.open(period) => store,
            () = self.stop.notified() => return,
        };
        let mut round = Round {
            followed: clusters
                .into_iter()
                .map(|cluster| Followed {
                    cluster,
                    last: None,
                    to_find: ToFind::default(),
                    resumed: false,
                    started_at: 0,
                    expect: None,
                    sampled_at: 0,
                })
                .collect(),
            outbox: Outbox::default(),
            leading: false,
            presence: Presence::default(),
            valid_until: 0,
            pruned_at: None,
            lease: (period * 3).max(Duration::from_secs(10)).as_secs() as i64,
            attempts: AttemptBatches::default(),
        };
        let mut tick = tokio::time::interval(period);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = tick.tick() => {}
                () = self.audit.journal.arrived() => {
                    tokio::time::sleep(ATTEMPTS_GATHER).await;
                    self.write_attempts(&store, &mut round).await;
                    continue;
                }
                () = self.stop.notified() => {
                    self.write_attempts(&store, &mut round).await;
                    if round.leading {
                        self.let_go(&store, &mut round).await;
                    }
                    return;
                }
            }
            self.period(&store, &mut round).await;
        }
    }

    /// One period: attempts written, the lease renewed (or taken), every
    /// cluster read and what changed written, old records pruned hourly.
    async fn period(&self, store: &JournalStore, round: &mut Round) {
        // The period's own cost, its reads of llmgw apart: what
        // `/metrics` says recording takes.
        let started = std::time::Instant::now();
        self.write_attempts(store, round).await;
        self.follow(store).await;
        self.renew_lease(store, round).await;
        let at = unix_now() as i64;
        let read_at = std::time::Instant::now();
        // Not the whole round: its database connection is not to be shared.
        let reads = self.read_all(&round.followed, round.leading).await;
        let reading = read_at.elapsed();
        let samples = self.compare(store, round, reads, at).await;
        if round.leading && self.write_period(store, round, at, &samples).await {
            self.journal
                .recorded_period(started.elapsed().saturating_sub(reading));
        }
        if round.leading {
            self.prune_when_due(store, round, at).await;
        }
    }

    /// Renews the lease, or takes it when it lapsed or its holder's
    /// session ended; sets `round.leading` to whether this console records.
    async fn renew_lease(&self, store: &JournalStore, round: &mut Round) {
        let asked = unix_now() as i64;
        let holds = self.holds_lease(store, round).await;
        self.journal.set(holds.as_ref().map(|_| ()));
        let term = holds.as_ref().ok().copied().flatten();
        let held = term.is_some();
        if round.leading && asked > round.valid_until && held {
            // Held again after it lapsed while the database did not
            // answer: another console may have recorded meanwhile.
            self.regained(store, round).await;
        }
        if held {
            round.valid_until = asked + round.lease;
        }
        if round.leading && holds.as_ref().is_ok_and(Option::is_none) {
            // Lost while the database did not answer this console (and
            // did another): what it saw meanwhile may be the new
            // holder's record too.
            self.lost(
                round,
                "this console lost the journal's lease; another records now",
            );
        }
        let now_leading = holds.map_or(round.leading, |term| term.is_some());
        let leadership = self.journal.leadership();
        match term {
            Some(term) => {
                let lead = Lead {
                    holder: self.holder.clone(),
                    term,
                };
                let clusters = round.cluster_ids().into_iter().map(str::to_string);
                leadership.led(lead, round.valid_until, clusters.collect());
            }
            // Not answered: what it held stands until its lease would lapse.
            None if now_leading => {}
            None => leadership.lost(),
        }
        if now_leading && !round.leading {
            // Taken over (or first start): what happened before is
            // another console's record, or none. What it wrote last is
            // taken in first: a start finds what the record does not
            // already say.
            tracing::info!(holder = %self.holder, "this console records the journal");
            for f in &mut round.followed {
                f.last = None;
            }
            self.follow(store).await;
        }
        if now_leading && let Some(dropped) = round.shed_past(PENDING_LIMIT) {
            tracing::warn!(
                dropped,
                "journal records dropped: more waited for the database than the console keeps; recording starts again from what it finds"
            );
        }
        round.leading = now_leading;
    }

    /// Whether this console holds the lease now: renewed, or taken over
    /// from a console whose database session is over.
    async fn holds_lease(
        &self,
        store: &JournalStore,
        round: &mut Round,
    ) -> Result<Option<Term>, StoreError> {
        let presence = &mut round.presence;
        match store.hold_lease(&self.holder, round.lease).await {
            Ok(Some(term)) => {
                presence.hold(store).await;
                Ok(Some(term))
            }
            Ok(None) if round.leading => Ok(None),
            // The lock free (or kept from a takeover that failed): the
            // recording console's session may be over.
            Ok(None) if presence.hold(store).await => {
                let taken = store.take_lease_over(&self.holder, round.lease).await;
                match taken {
                    Ok(Some(_)) => tracing::info!(
                        "the recording console's database session ended; this console takes over"
                    ),
                    // The holder never had the lock: left to it.
                    Ok(None) => presence.let_go(),
                    Err(_) => {}
                }
                taken
            }
            other => other,
        }
    }

    /// Every cluster's reading of this period, side by side: a cluster
    /// whose admin API does not answer holds the others' records up for
    /// one request's time, not for the sum of them.
    async fn read_all(&self, followed: &[Followed], leading: bool) -> Vec<Reading> {
        futures_util::future::join_all(followed.iter().map(|f| self.read(&f.cluster, leading)))
            .await
    }

    /// What changed between each cluster's last reading and `reads` (when
    /// this console records), into its outbox; the wall's samples due.
    async fn compare(
        &self,
        store: &JournalStore,
        round: &mut Round,
        reads: Vec<Reading>,
        at: i64,
    ) -> Vec<(String, llmgw_journal::Sample)> {
        let mut samples = Vec::new();
        let outbox = &mut round.outbox;
        for (f, mut read) in round.followed.iter_mut().zip(reads) {
            if round.leading {
                let shown = f.cluster.clone();
                let cluster = &shown.tag.id;
                match &f.last {
                    Some(last) => outbox.add(between(cluster, last, &read, at)),
                    None => {
                        let (start, found) = self.started(store, cluster, at).await;
                        // A read that failed leaves the last write known
                        // before: still checked exactly, so safe, and not
                        // a refusal of every cluster's records because a
                        // write this console made itself is unknown.
                        f.expect = found.or(f.expect.take());
                        f.resumed = matches!(
                            start.event(),
                            Some(Event::RecordingStarted { resumed: true, .. })
                        );
                        f.to_find = ToFind::ALL;
                        f.started_at = at;
                        outbox.add([start]);
                    }
                }
                if f.to_find.any() {
                    outbox.add(self.found(f, &read, at));
                }
                if at - f.sampled_at >= trends::SPACING
                    && let Some(sample) = sample_of(&f.cluster, &read, at)
                {
                    f.sampled_at = at;
                    samples.push((cluster.clone(), sample));
                }
            }
            // A list that did not answer keeps its last answer: the first
            // good read after llmgw was away is compared with the last
            // good one before, so what changed meanwhile is recorded (when
            // it was seen), not lost.
            if let Some(last) = f.last.take() {
                read.carry_forward(last);
            }
            f.last = Some(read);
        }
        samples
    }

    /// Writes the period's records, in the transaction that renews the
    /// lease; what a database that fails does not take waits for the next.
    /// Says whether they were written.
    async fn write_period(
        &self,
        store: &JournalStore,
        round: &mut Round,
        at: i64,
        samples: &[(String, llmgw_journal::Sample)],
    ) -> bool {
        if !self.settle_unanswered(store, round).await {
            return false;
        }
        let asked = unix_now() as i64;
        let ids = round.cluster_ids();
        let expected = round.expected();
        let period = round.period(&ids, &expected, at, samples);
        let written = store
            .record_period(
                &self.holder,
                round.lease,
                &period,
                round.presence.unannounced(),
            )
            .await;
        match written {
            Ok(true) => {
                self.journal.set(Ok(()));
                round.presence.announced();
                round.valid_until = asked + round.lease;
                round.written(&self.holder, at);
                round.outbox.written();
                // The pages' "since when" at once, not a period later.
                self.follow(store).await;
                true
            }
            // Reads so slow, or a database away so long, that the lease
            // lapsed and another console took over (it records this
            // period); or another console recorded a cluster since (see
            // `Period::expected`).
            Ok(false) => {
                self.lost(
                    round,
                    "a period of the journal was refused: this console lost its lease, or another console recorded since; recording starts again",
                );
                round.leading = false;
                false
            }
            // Kept, and judged when the database answers. A sample missed
            // is a gap in a line, not a lost record.
            Err(e) => {
                self.journal.set(Err(&e));
                round.outbox.unanswered_at(at);
                false
            }
        }
    }

    /// Whether a write whose answer did not come was committed all the
    /// same (the journal says this console recorded its clusters until its
    /// `at`): if so, what it held is not written again. False while the
    /// database cannot say, so that nothing is written twice meanwhile.
    async fn settle_unanswered(&self, store: &JournalStore, round: &mut Round) -> bool {
        let Some(first) = round.followed.first() else {
            return true;
        };
        let cluster = first.cluster.tag.id.clone();
        match round.outbox.settle(store, &self.holder, &cluster).await {
            Ok(Settled::Nothing) => true,
            Ok(Settled::Committed { at, held }) => {
                tracing::warn!(
                    records = held,
                    "a journal write whose answer was lost had been committed; not written again"
                );
                round.written(&self.holder, at);
                true
            }
            Err(e) => {
                self.journal.set(Err(&e));
                false
            }
        }
    }

    /// Prunes records past `--retain` and samples past the trends' reach,
    /// once an hour.
    async fn prune_when_due(&self, store: &JournalStore, round: &mut Round, at: i64) {
        if round.pruned_at.is_some_and(|t| t.elapsed() < PRUNE_EVERY) {
            return;
        }
        round.pruned_at = Some(std::time::Instant::now());
        let before = at - self.retain.as_secs() as i64;
        if let Err(e) = store.prune(before).await {
            tracing::warn!(error = %e, "old journal records could not be pruned");
        }
        if let Err(e) = store.prune_samples(at - trends::REACH).await {
            tracing::warn!(error = %e, "old trend samples could not be pruned");
        }
    }

    /// As the console stops: writes what waits and lets the lease go, so
    /// that another console records at once.
    async fn let_go(&self, store: &JournalStore, round: &mut Round) {
        self.write_pending(store, round).await;
        // The lock first: a console that gets it must find the lease
        // still this one's, not its successor's.
        round.presence.let_go();
        self.journal.leadership().lost();
        if let Err(e) = store.release_lease(&self.holder).await {
            tracing::warn!(error = %e, "the journal's lease could not be let go; another console takes over once it lapses");
        }
    }

    /// The lease was lost, or a period refused: another console records
    /// now, or did since, from its own start of recording, and what this
    /// one saw but had not written may be in the other's record too.
    /// Dropped, so that nothing is recorded twice; the log says how much.
    fn lost(&self, round: &mut Round, why: &str) {
        let dropped = round.outbox.drop_all();
        tracing::warn!(holder = %self.holder, dropped, "{why}");
        round.presence.let_go();
        self.journal.leadership().lost();
    }

    /// The lease is this console's again after it lapsed while the database
    /// did not answer. Of a cluster another console recorded meanwhile,
    /// anything this one saw and has not written may be in that record
    /// too (another takes over before the lease lapses once the database
    /// has ended this one's session): dropped, and recording of it starts
    /// again. Of one nobody recorded, everything waiting is written.
    async fn regained(&self, store: &JournalStore, round: &mut Round) {
        // A write whose answer was lost may be the last write found: this
        // console's own, not another's. Settled first; one the database
        // cannot settle now is settled before the next write, and what it
        // held stays (the oldest records), to be dropped or written then.
        self.settle_unanswered(store, round).await;
        for f in &mut round.followed {
            let cluster = f.cluster.tag.id.as_str();
            // A database that does not say is taken to say another did:
            // a record written twice is worse than one started again.
            let another = match &f.expect {
                Some(expect) => store
                    .written_since(cluster, expect.clone())
                    .await
                    .unwrap_or(true),
                None => true,
            };
            if !another {
                continue;
            }
            let dropped = round.outbox.drop_cluster(cluster);
            tracing::warn!(
                cluster,
                dropped,
                "another console recorded while this one was cut off from the journal; recording starts again"
            );
            f.last = None;
        }
    }

    /// What waits, written as the console stops, while the lease is still
    /// this console's.
    async fn write_pending(&self, store: &JournalStore, round: &mut Round) {
        if round.outbox.is_empty() || !self.settle_unanswered(store, round).await {
            return;
        }
        let ids = round.cluster_ids();
        let expected = round.expected();
        let period = round.period(&ids, &expected, unix_now() as i64, &[]);
        // Renewed for no time: it is let go right after.
        match store.record_period(&self.holder, 0, &period, false).await {
            Ok(true) => round.outbox.written(),
            Ok(false) => tracing::warn!(
                dropped = round.outbox.len(),
                "journal records not written as the console stopped: its lease was lost, or another console recorded since"
            ),
            Err(e) => tracing::warn!(
                error = %e,
                dropped = round.outbox.len(),
                "journal records not written as the console stopped"
            ),
        }
    }

    /// The states the record starts from, of the lists `read` has that
    /// are yet to be found (see `transitions::found`).
    fn found(&self, f: &mut Followed, read: &Reading, at: i64) -> Vec<JournalEvent> {
        let cluster = f.cluster.tag.id.as_str();
        // A list that answers only after a long gap is found whole.
        if at - f.started_at > BRIDGED_GAP {
            f.resumed = false;
        }
        let index = self.journal.read_since_index();
        // After a short gap, what the record said, if it said anything:
        // what it said nothing of may have appeared within the gap, so it
        // is found, not said to have changed. After a long one, nothing:
        // every state not the usual one is found.
        let known = |kind: EventKind, name: &str| {
            if !f.resumed {
                return None;
            }
            let said = match kind {
                EventKind::NodeSeen => index.node_state(cluster, name),
                EventKind::ModelSeen => index.model_status(cluster, name),
                EventKind::ReplicaSeen => index.replica_state(cluster, name),
                _ => None,
            };
            said.map(str::to_string)
        };
        let unhealthy_known = |node: &str| {
            if f.resumed {
                index.unhealthy_gpus(cluster, node)
            } else {
                Vec::new()
            }
        };
        let mut events = found(cluster, read, at, f.to_find, &known, &unhealthy_known);
        if let (true, Some(replicas)) = (f.to_find.replicas, &read.replicas) {
            events.extend(gone_unseen(
                cluster,
                replicas,
                at,
                index.replicas_of(cluster),
            ));
        }
        drop(index);
        f.to_find = f.to_find.after(read);
        events
    }

    /// The record that recording of `cluster` starts (again) at `at`;
    /// `before` says until when it was recorded last, so that a short gap
    /// (a restart, an upgrade) is told from a long one. With it, the
    /// record's last write of it as found (`None`: the database did not
    /// say).
    async fn started(
        &self,
        store: &JournalStore,
        cluster: &str,
        at: i64,
    ) -> (JournalEvent, Option<Option<LastWrite>>) {
        let fresh = Event::RecordingStarted {
            gap_from: None,
            resumed: false,
        };
        match store.last_write(cluster).await {
            Ok(Some(last)) => {
                let event = Event::RecordingStarted {
                    gap_from: Some(last.until),
                    resumed: at - last.until <= BRIDGED_GAP,
                };
                (event.record(at, cluster), Some(Some(last)))
            }
            Ok(None) => (fresh.record(at, cluster), Some(None)),
            Err(_) => (fresh.record(at, cluster), None),
        }
    }

    /// Brings the since index up to what the journal holds: its newest
    /// record of each thing at first, then what was added since, by this
    /// console or another.
    async fn follow(&self, store: &JournalStore) {
        loop {
            let last = self.journal.since_index().last_id;
            let read = if last == 0 {
                store.latest_states().await
            } else {
                store.read_after(last, FOLLOW_BATCH).await
            };
            match read {
                Ok(events) => {
                    self.journal.since_index().apply(&events);
                    if last == 0 || events.len() < FOLLOW_BATCH as usize {
                        return;
                    }
                }
                Err(e) => return self.journal.set(Err(&e)),
            }
        }
    }

    /// This console's attempts, every one of them whoever records
    /// transitions. A batch the database did not take, or whose answer
    /// was lost, is sent again first, under its number: written all the
    /// same, it is not written twice.
    async fn write_attempts(&self, store: &JournalStore, round: &mut Round) {
        let queue = &self.audit.journal;
        let dropped = queue.take_dropped();
        if dropped > 0 {
            tracing::warn!(
                dropped,
                "attempts not written to the journal: too many waited for its database"
            );
        }
        match round.attempts.resend(store, &self.holder).await {
            Ok(Resent::Nothing) => {}
            Ok(Resent::Written) => self.journal.set(Ok(())),
            Ok(Resent::AlreadyWritten(attempts)) => {
                tracing::warn!(
                    attempts,
                    "a batch of attempts whose answer was lost had been written; not written again"
                );
                self.journal.set(Ok(()));
            }
            // Nothing newer goes before it.
            Err(e) => {
                self.journal.set(Err(&e));
                return;
            }
        }
        let attempts = queue.take();
        if attempts.is_empty() {
            return;
        }
        let written = round.attempts.send(store, &self.holder, attempts).await;
        self.journal.set(written.as_ref().map(|_| ()));
    }

    async fn open(&self, period: Duration) -> JournalStore {
        let mut wait = period;
        loop {
            match JournalStore::open(&self.url).await {
                Ok(store) => {
                    self.journal.set(Ok(()));
                    self.journal.opened(store.clone());
                    return store;
                }
                Err(e) => {
                    self.journal.set(Err(&e));
                    tokio::time::sleep(wait).await;
                    wait = (wait * 2).min(RETRY_AT_MOST);
                }
            }
        }
    }

    /// What the shared poll last read of `cluster`, read afresh when it is
    /// older than `record_every` (nobody looks). A follower asks nothing.
    async fn read(&self, cluster: &Cluster, leading: bool) -> Reading {
        let snapshots = &cluster.snapshots;
        let stale = snapshots
            .known()
            .nodes
            .is_none_or(|read| read.age >= self.record_every);
        if leading && stale {
            snapshots.poll().await;
        }
        let known = snapshots.known();
        let models = known.models.and_then(|read| read.answer.ok());
        let nodes = known.nodes.and_then(|read| read.answer.ok());
        let mut headlines = HashMap::new();
        if leading && let Some(catalog) = &models {
            let words = nodes
                .as_deref()
                .map(|n| crate::reasons::Vocabulary::of(n))
                .unwrap_or_default();
            let not_placed: Vec<String> = catalog
                .iter()
                .filter(|m| ModelStatus::of(m) == ModelStatus::NotPlaced)
                .map(|m| m.name.clone())
                .collect();
            for (model, answer) in snapshots.headlines(not_placed, &words).await {
                if let Some(headline) = answer.ok().and_then(|h| h.as_ref().clone()) {
                    headlines.insert(model, headline);
                }
            }
        }
        Reading {
            nodes,
            models,
            replicas: known.replicas.and_then(|read| read.answer.ok()),
            headlines,
        }
    }
}

/// The wall's headline figures of `reading`, when its three lists are in;
/// the orphaned weights as last listed, or none.
fn sample_of(cluster: &Cluster, reading: &Reading, at: i64) -> Option<llmgw_journal::Sample> {
    let (nodes, models, replicas) = (
        reading.nodes.as_ref()?,
        reading.models.as_ref()?,
        reading.replicas.as_ref()?,
    );
    let orphans = cluster
        .snapshots
        .known()
        .orphans
        .and_then(|read| read.answer.ok());
    let orphans = orphans.as_deref().map_or(&[][..], Vec::as_slice);
    let mut view = crate::wall::wall_view(nodes, models, replicas, orphans, &|_| None);
    view.taken_at = at;
    Some(view.sample())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster_tag::ClusterTag;
    use crate::server::admin_client::AdminApiClient;

    fn round(pending: usize) -> Round {
        let tag = ClusterTag {
            id: "eu".into(),
            label: "eu".into(),
            colour: None,
        };
        let client = AdminApiClient::new("127.0.0.1:9").expect("an address");
        let cluster = Cluster::new(
            tag,
            client,
            Duration::from_secs(1),
            false,
            String::new(),
            Arc::new(Journal::default()),
        );
        Round {
            followed: vec![Followed {
                cluster: Arc::new(cluster),
                last: Some(Reading::default()),
                to_find: ToFind::default(),
                resumed: false,
                started_at: 0,
                expect: None,
                sampled_at: 0,
            }],
            outbox: {
                let mut outbox = Outbox::default();
                outbox.add(
                    (0..pending).map(|i| JournalEvent::new(i as i64, "eu", EventKind::NodeState)),
                );
                outbox
            },
            leading: true,
            presence: Presence::default(),
            valid_until: 0,
            pruned_at: None,
            lease: 10,
            attempts: AttemptBatches::default(),
        }
    }

    #[tokio::test]
    async fn past_the_limit_everything_waiting_goes_and_recording_starts_again() {
        let mut at_limit = round(PENDING_LIMIT);
        assert_eq!(at_limit.shed_past(PENDING_LIMIT), None);
        assert_eq!(at_limit.outbox.len(), PENDING_LIMIT, "kept up to the limit");
        assert!(at_limit.followed[0].last.is_some());

        let mut past = round(PENDING_LIMIT + 1);
        assert_eq!(past.shed_past(PENDING_LIMIT), Some(PENDING_LIMIT + 1));
        assert!(past.outbox.is_empty(), "all of them, not the oldest");
        assert!(
            past.followed[0].last.is_none(),
            "the next period starts recording again from what it finds"
        );
    }
}
