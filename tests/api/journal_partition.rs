//! Consoles on one PostgreSQL, and the network between the recording one
//! and the database cut: in the middle of its write, between two periods,
//! or after a COMMIT whose answer is then lost. The other console takes
//! over, the cut-off one says its journal is not written, and once the
//! network heals nothing is recorded twice. And a network that drops
//! what is sent over it, where only the database's keepalives end the
//! cut-off console's session.

use std::time::{Duration, Instant};

use llmgw_journal::JournalStore;
use llmgw_journal::record::EventKind;

use crate::support::databases::Postgres;
use crate::support::journal_steps::{
    console_args, cordon, cordon_one_upstream, count, journal_written_again, nodes_in, not_written,
    of_node, set_state_upstream,
};
use crate::support::netns::Network;
use crate::support::partition::Partition;
use crate::support::poll::{until, until_within};
use crate::support::process::Process;

/// A PostgreSQL server, a network to it the test can cut, a simulated
/// cluster, and the journal open for the test to read.
struct Setting {
    server: Postgres,
    net: Partition,
    simulator: Process,
    store: JournalStore,
}

impl Setting {
    async fn new() -> Self {
        let server = Postgres::start().await;
        let port: u16 = server
            .url
            .rsplit_once(':')
            .and_then(|(_, rest)| rest.split('/').next()?.parse().ok())
            .expect("the server's port");
        let net = Partition::to(port).await;
        let simulator = Process::simulator().await;
        let store = JournalStore::open(&server.url)
            .await
            .expect("the database answers");
        Self {
            server,
            net,
            simulator,
            store,
        }
    }

    /// A console behind the network that will be cut, once it records
    /// (the first to).
    async fn recording_behind(&self) -> Process {
        let through = format!("postgres://postgres@127.0.0.1:{}/postgres", self.net.port);
        let console =
            Process::start(&console_args(&self.simulator, ["--database", &through])).await;
        until("the first console records", async || {
            (count(&self.store, EventKind::RecordingStarted).await == 1).then_some(())
        })
        .await;
        console
    }

    /// A console behind the network that will be cut, once it records,
    /// and another connected directly.
    async fn consoles(&self) -> (Process, Process) {
        let cut_off = self.recording_behind().await;
        let direct = ["--database", self.server.url.as_str()];
        let other = Process::start(&console_args(&self.simulator, direct)).await;
        assert!(self.leasing().await.starts_with(&holder(&cut_off)));
        (cut_off, other)
    }

    /// Waits until `console` holds the lease and has started recording.
    /// (A change made before that is found as it starts, not recorded as
    /// a change: what a takeover can miss.)
    async fn taken_over_by(&self, console: &Process) {
        let name = holder(console);
        until_within(
            Duration::from_secs(60),
            "the other console takes over",
            async || {
                let (leasing, _) = self.store.lease().await.ok().flatten()?;
                let started = count(&self.store, EventKind::RecordingStarted).await;
                (leasing.starts_with(&name) && started == 2).then_some(())
            },
        )
        .await;
    }

    async fn cordon_one(&self) -> Vec<String> {
        cordon_one_upstream(&self.simulator, &self.store).await
    }

    /// Heals the network, waits until `console` no longer says its
    /// journal is not written, and drains `node` until that is recorded.
    async fn heal_and_record(&self, console: &Process, node: &str) {
        self.net.heal();
        journal_written_again(console).await;
        set_state_upstream(&self.simulator, node, "draining").await;
        until("the change after the healing is recorded", async || {
            (!of_node(&self.store, node).await.is_empty()).then_some(())
        })
        .await;
    }

    async fn leasing(&self) -> String {
        let (holder, _) = self.store.lease().await.expect("reads").expect("held");
        holder
    }
}

/// How a console's name in the lease begins.
fn holder(console: &Process) -> String {
    format!("{}-", console.pid())
}

#[tokio::test]
async fn a_console_cut_off_mid_write_is_replaced_and_writes_nothing_twice() {
    let setting = Setting::new().await;
    let (net, store) = (&setting.net, &setting.store);
    let (cut_off, other) = setting.consoles().await;

    // Cut just before a period's COMMIT: its transaction is left open on
    // the server, holding the lease's row, and the console waits for an
    // answer that does not come.
    net.cut_before(b"COMMIT");
    until("the recording console is cut off mid-write", async || {
        net.is_cut().then_some(())
    })
    .await;
    let cut_at = Instant::now();

    // The server ends the silent transaction, the lease lapses, and the
    // other console takes over and records.
    setting.taken_over_by(&other).await;
    let taken_over = cut_at.elapsed();
    assert!(
        taken_over < Duration::from_secs(40),
        "taken over {} s after the cut",
        taken_over.as_secs()
    );
    let ready = setting.cordon_one().await;
    // The cut-off console says so, as for a database that is down.
    not_written(&cut_off).await;

    // Healed: the first console finds the lease another's and writes
    // nothing of what it saw meanwhile; the other goes on recording.
    setting.heal_and_record(&cut_off, &ready[1]).await;
    tokio::time::sleep(Duration::from_secs(4)).await;
    for node in &ready[..2] {
        let events = of_node(store, node).await;
        assert_eq!(events.len(), 1, "recorded once: {events:?}");
    }
    assert_eq!(
        count(store, EventKind::RecordingStarted).await,
        2,
        "the first console's start and the other's takeover"
    );
    assert!(setting.leasing().await.starts_with(&holder(&other)));
}

#[tokio::test]
async fn a_console_back_after_another_recorded_starts_again_and_writes_nothing_twice() {
    let setting = Setting::new().await;
    let (net, simulator, store) = (&setting.net, &setting.simulator, &setting.store);
    let (cut_off, mut other) = setting.consoles().await;

    // Cut between two periods; the other takes over once the lease lapses
    // and records a change, then stops (an upgrade) and lets the lease go.
    net.cut();
    setting.taken_over_by(&other).await;
    let ready = setting.cordon_one().await;
    not_written(&cut_off).await;
    assert!(other.terminate_within(Duration::from_secs(10)), "stops");
    assert_eq!(store.lease().await.expect("reads"), None, "let go");

    // Back, the first console gets the lease again, finds that another
    // recorded while it was away, drops what it saw meanwhile and starts
    // again from what it finds.
    net.heal();
    until("the first console records again", async || {
        (count(store, EventKind::RecordingStarted).await == 3).then_some(())
    })
    .await;
    assert!(setting.leasing().await.starts_with(&holder(&cut_off)));
    set_state_upstream(simulator, &ready[1], "draining").await;
    until("the change after its return is recorded", async || {
        (!of_node(store, &ready[1]).await.is_empty()).then_some(())
    })
    .await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    for node in &ready[..2] {
        let events = of_node(store, node).await;
        assert_eq!(events.len(), 1, "recorded once: {events:?}");
    }
}

#[tokio::test]
async fn a_write_committed_whose_answer_was_lost_is_not_written_again() {
    let setting = Setting::new().await;
    let (net, simulator, store) = (&setting.net, &setting.simulator, &setting.store);
    let console = setting.recording_behind().await;

    // The server commits the period that holds the change; its answer is
    // lost on the way (the network is cut right after the COMMIT).
    let ready = nodes_in(simulator, "ready").await;
    net.cut_after(ready[0].as_bytes(), b"COMMIT");
    set_state_upstream(simulator, &ready[0], "cordoned").await;
    until("the period with the change is committed", async || {
        (net.is_cut() && !of_node(store, &ready[0]).await.is_empty()).then_some(())
    })
    .await;
    not_written(&console).await;
    // Long enough for its lease to lapse (10 s from its last renewal): it
    // then takes its own lost write for another console's unless it
    // looks for it first.
    tokio::time::sleep(Duration::from_secs(6)).await;

    // Healed, the console finds its write in the journal and does not
    // write it again.
    setting.heal_and_record(&console, &ready[1]).await;
    let events = of_node(store, &ready[0]).await;
    assert_eq!(events.len(), 1, "written once: {events:?}");
    assert_eq!(count(store, EventKind::RecordingStarted).await, 1);
    assert!(
        console.stop().contains("not written again"),
        "the console found its write"
    );
}

/// The recording console's database session ended (by an operator, or
/// a pooler's idle timeout) while the console lives: the other takes the
/// lease over, records a change and stops, letting the lease go, all
/// between two of the first console's periods. The first then finds the
/// lease free and takes it as if it had never lost it; what it saw
/// meanwhile is the change the other recorded, and is not written again.
#[tokio::test]
async fn a_lease_taken_over_and_given_back_between_two_periods_writes_nothing_twice() {
    let server = Postgres::start().await;
    let simulator = Process::simulator().await;
    let store = JournalStore::open(&server.url)
        .await
        .expect("the database answers");
    // Half a minute between the first console's periods, one second
    // between the other's.
    let first = Process::start(&[
        "--admin-api",
        &simulator.url,
        "--refresh-seconds",
        "30",
        "--log",
        "warn",
        "--database",
        &server.url,
    ])
    .await;
    until("the first console records", async || {
        (count(&store, EventKind::RecordingStarted).await == 1).then_some(())
    })
    .await;
    let mut other = Process::start(&console_args(&simulator, ["--database", &server.url])).await;
    let cluster = "default";
    let written_at = store.recorded_until(cluster).await.expect("reads");
    until_within(
        Duration::from_secs(40),
        "the first console writes a period",
        async || (store.recorded_until(cluster).await.ok()? != written_at).then_some(()),
    )
    .await;
    let its_period = Instant::now();

    // The session holding the first console's lock, ended.
    let ended = server.ask(
        "SELECT COUNT(pg_terminate_backend(pid)) FROM pg_locks \
         WHERE locktype = 'advisory' AND granted AND objid = 2003985763",
    );
    assert_eq!(ended, "1", "the first console's session held the lock");
    until("the other console takes over", async || {
        let (leasing, _) = store.lease().await.ok().flatten()?;
        let started = count(&store, EventKind::RecordingStarted).await;
        (leasing.starts_with(&holder(&other)) && started == 2).then_some(())
    })
    .await;
    // Seen by both: by the other as it records, by the first at its next
    // period, as a change since its last.
    let ready = cordon_one_upstream(&simulator, &store).await;
    assert!(other.terminate_within(Duration::from_secs(10)), "stops");
    assert_eq!(store.lease().await.expect("reads"), None, "let go");
    // All of it between two of the first console's periods, or this tests
    // nothing (the first would have found the lease another's).
    assert!(
        its_period.elapsed() < Duration::from_secs(25),
        "taken over, used and let go within {} s of the first's period",
        its_period.elapsed().as_secs()
    );

    until_within(
        Duration::from_secs(70),
        "the first console records again",
        async || {
            let last = store.last_write(cluster).await.ok()??;
            last.by?.starts_with(&holder(&first)).then_some(())
        },
    )
    .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let events = of_node(&store, &ready[0]).await;
    assert_eq!(events.len(), 1, "recorded once: {events:?}");
}

/// A batch of attempts committed whose answer is lost on the way: found
/// in the journal once the network heals, and not written again.
#[tokio::test]
async fn attempts_committed_whose_answer_was_lost_are_not_written_again() {
    let setting = Setting::new().await;
    let (net, simulator, store) = (&setting.net, &setting.simulator, &setting.store);
    let console = setting.recording_behind().await;

    let ready = nodes_in(simulator, "ready").await;
    net.cut_after(b"set_node_state", b"COMMIT");
    let answer = cordon(&console, &ready[0], "attempts once").await;
    assert!(answer.status().is_success(), "{}", answer.status());
    let attempts = async || {
        of_node(store, &ready[0])
            .await
            .into_iter()
            .filter(|e| e.kind == EventKind::Attempt)
            .collect::<Vec<_>>()
    };
    until("the attempts' batch is committed", async || {
        (net.is_cut() && !attempts().await.is_empty()).then_some(())
    })
    .await;
    not_written(&console).await;

    net.heal();
    journal_written_again(&console).await;
    until("every attempt is written", async || {
        attempts()
            .await
            .iter()
            .any(|e| e.after.as_deref() == Some("done"))
            .then_some(())
    })
    .await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let written = attempts().await;
    assert_eq!(written.len(), 2, "sent and done, once each: {written:?}");
    assert!(
        console
            .stop()
            .contains("attempts whose answer was lost had been written"),
        "the console found its batch"
    );
}

/// The network to the recording console dropped for good, packets lost
/// and nothing refused: the database's keepalives go unanswered, it ends
/// the console's session and with it the lock that session held, and the
/// other console takes over then, long before the lease would lapse.
#[tokio::test]
async fn a_console_whose_packets_are_lost_is_replaced_once_keepalives_give_up() {
    let network = Network::new();
    let server = Postgres::start_in(&network).await;
    let simulator = Process::simulator().await;
    let store = JournalStore::open(&server.url)
        .await
        .expect("the database answers");
    // A period of a minute, so a lease of three: only the end of its
    // session lets another console take over within a minute.
    let through = server.url_at(&network.links[0].server);
    let cut_off = Process::start(&[
        "--admin-api",
        &simulator.url,
        "--refresh-seconds",
        "60",
        "--log",
        "warn",
        "--database",
        &through,
    ])
    .await;
    until("the first console records", async || {
        (count(&store, EventKind::RecordingStarted).await == 1).then_some(())
    })
    .await;
    let other = Process::start(&console_args(&simulator, ["--database", &server.url])).await;
    let (leasing, expires) = store.lease().await.expect("reads").expect("held");
    assert!(leasing.starts_with(&holder(&cut_off)));

    network.cut(0);
    let cut_at = Instant::now();
    until_within(
        Duration::from_secs(100),
        "the other console takes over",
        async || {
            let (leasing, _) = store.lease().await.ok().flatten()?;
            let started = count(&store, EventKind::RecordingStarted).await;
            (leasing.starts_with(&holder(&other)) && started == 2).then_some(())
        },
    )
    .await;
    let taken_over = cut_at.elapsed();
    let now: i64 = server
        .ask("SELECT CAST(EXTRACT(EPOCH FROM now()) AS BIGINT)")
        .parse()
        .expect("a number");
    assert!(
        now < expires && taken_over < Duration::from_secs(60),
        "taken over {} s after the cut, {} s before the lease lapsed",
        taken_over.as_secs(),
        expires - now
    );

    // The other records what changes.
    cordon_one_upstream(&simulator, &store).await;
}
