//! Pushes to every open page when the cluster's lists move. While at least
//! one page listens, one task polls the shared lists once a period (and at
//! once after a change made through the console) and sends every listener a
//! heartbeat; with nobody listening it waits, and the admin API is asked
//! nothing. The cost of a period is one poll, whatever the number of pages.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, watch};

use super::audit::AuditLog;
use super::snapshots::Snapshots;
use super::wall_feed::WallFeed;
use crate::heartbeat::Heartbeat;

/// Even a still cluster moves on screen: replicas' ages and idle times.
/// Once this long, every page reads again.
const CLOCK_TURN: Duration = Duration::from_secs(60);

/// What a listener is told.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Beat {
    /// Nothing polled yet.
    Quiet,
    Pulse(Heartbeat),
    /// The console is shutting down: listeners end their stream, so that
    /// open pages do not hold the shutdown up.
    Closed,
}

/// What the poller reads.
pub struct Sources {
    pub lists: Arc<Snapshots>,
    pub wall: Arc<WallFeed>,
    pub audit: Arc<AuditLog>,
}

#[derive(Debug)]
pub struct ChangeFeed {
    beats: watch::Sender<Beat>,
    /// Woken by the first listener after a time with none.
    listener: Notify,
    polling: AtomicBool,
}

impl Default for ChangeFeed {
    fn default() -> Self {
        Self {
            beats: watch::Sender::new(Beat::Quiet),
            listener: Notify::new(),
            polling: AtomicBool::new(false),
        }
    }
}

impl ChangeFeed {
    /// A new listener; the poller starts with the first one ever.
    pub fn listen(self: &Arc<Self>, sources: impl FnOnce() -> Sources) -> watch::Receiver<Beat> {
        let beats = self.beats.subscribe();
        if !self.polling.swap(true, Ordering::SeqCst) {
            tokio::spawn(poll_while_listened(self.clone(), sources()));
        }
        self.listener.notify_one();
        beats
    }

    /// Ends every listener's stream, now and from now on.
    pub fn close(&self) {
        self.beats.send_replace(Beat::Closed);
        self.listener.notify_one();
    }

    /// What a listener that opens now hears first: the last poll's
    /// heartbeat, if any poll has run.
    pub fn current(&self) -> Option<Heartbeat> {
        match *self.beats.borrow() {
            Beat::Pulse(heartbeat) => Some(heartbeat),
            Beat::Quiet | Beat::Closed => None,
        }
    }

    /// Listeners right now.
    pub fn listeners(&self) -> usize {
        self.beats.receiver_count()
    }
}

async fn poll_while_listened(feed: Arc<ChangeFeed>, sources: Sources) {
    let Sources { lists, wall, audit } = sources;
    let started = Instant::now();
    loop {
        while feed.beats.receiver_count() == 0 && *feed.beats.borrow() != Beat::Closed {
            feed.listener.notified().await;
        }
        if *feed.beats.borrow() == Beat::Closed {
            return;
        }
        let ok = lists.poll().await;
        // Every page's tab shows the pulse, so it is worked out once a poll
        // while anyone listens; the wall's trends are sampled with it.
        let pulse = wall.current(&lists).await.ok().map(|view| view.pulse());
        let turns = started.elapsed().as_secs() / CLOCK_TURN.as_secs();
        let heartbeat = Heartbeat {
            generation: lists.generation() + audit.written() + turns,
            ok,
            pulse,
        };
        feed.beats.send_if_modified(|beat| {
            let open = *beat != Beat::Closed;
            if open {
                *beat = Beat::Pulse(heartbeat);
            }
            // Sent even when unchanged: the heartbeat is how a page knows
            // its data is current.
            open
        });
        tokio::select! {
            () = tokio::time::sleep(lists.period()) => {}
            () = lists.next_change() => {}
        }
    }
}
