//! When a new answer of a list is news. The admin API reports a replica's age
//! and idle time relative to its own clock, so two answers a period apart
//! always differ there; time passing is not a change an open page needs to
//! be told about. Everything else is compared as it is.

use std::time::Duration;

use crate::admin_api::types::{ModelView, NodeView, OrphanView, ReplicaView};

/// Slack for relative times: the two answers were taken at instants the
/// console only knows to about a second, and the admin API rounds down.
const CLOCK_SLACK_SECONDS: i64 = 2;

pub trait Substance {
    /// Whether `self` says what `earlier`, taken `elapsed` before, said.
    fn same_as(&self, earlier: &Self, elapsed: Duration) -> bool;
}

macro_rules! compared_as_is {
    ($($t:ty),*) => {$(
        impl Substance for Vec<$t> {
            fn same_as(&self, earlier: &Self, _: Duration) -> bool {
                self == earlier
            }
        }
    )*};
}

compared_as_is!(NodeView, ModelView, OrphanView);

impl Substance for Vec<ReplicaView> {
    fn same_as(&self, earlier: &Self, elapsed: Duration) -> bool {
        let elapsed = elapsed.as_secs() as i64;
        self.len() == earlier.len()
            && self
                .iter()
                .zip(earlier)
                .all(|(now, then)| same_replica(now, then, elapsed))
    }
}

fn same_replica(now: &ReplicaView, then: &ReplicaView, elapsed: i64) -> bool {
    let aged = |new: i64, old: i64| (new - old - elapsed).abs() <= CLOCK_SLACK_SECONDS;
    // Unknown idle time (negative) stays unknown; a known one only grows
    // with the clock, or the replica was used.
    let idle_same = match (now.idle_sec < 0, then.idle_sec < 0) {
        (true, true) => true,
        (false, false) => aged(now.idle_sec, then.idle_sec),
        _ => false,
    };
    idle_same
        && aged(now.age_sec, then.age_sec)
        && ReplicaView {
            age_sec: then.age_sec,
            idle_sec: then.idle_sec,
            ..now.clone()
        } == *then
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replica(age: i64, idle: i64) -> ReplicaView {
        ReplicaView {
            id: "r-1".into(),
            model: "m".into(),
            state: "ready".into(),
            age_sec: age,
            idle_sec: idle,
            ..ReplicaView::default()
        }
    }

    #[test]
    fn time_passing_is_not_news_but_use_and_restarts_are() {
        let then = vec![replica(100, 40)];
        let five = Duration::from_secs(5);
        assert!(vec![replica(105, 45)].same_as(&then, five));
        assert!(vec![replica(106, 44)].same_as(&then, five), "within slack");
        assert!(!vec![replica(105, 0)].same_as(&then, five), "used");
        assert!(!vec![replica(3, 3)].same_as(&then, five), "restarted");
        assert!(!vec![replica(105, -1)].same_as(&then, five), "idle unknown");
        let mut moved = replica(105, 45);
        moved.state = "draining".into();
        assert!(!vec![moved].same_as(&then, five));
        assert!(!Vec::<ReplicaView>::new().same_as(&then, five));
        let unknown = vec![replica(100, -1)];
        assert!(vec![replica(105, -1)].same_as(&unknown, five));
    }
}
