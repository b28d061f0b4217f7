//! When a new answer of a list is news. The admin API reports a replica's age
//! and idle time relative to its own clock, and a node's last heartbeat as
//! time since (`last_seen_ago`), so two answers a period apart always
//! differ there; time passing is not a change an open page needs to be told
//! about. Everything else is compared as it is.

use std::time::Duration;

use crate::admin_api::types::{ModelView, NodeView, OrphanView, ReplicaView};
use crate::fixes::SILENT_SEC;
use crate::format::parse_duration;

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

compared_as_is!(ModelView, OrphanView);

/// Two lists, item by item in order, by `same` with the seconds between
/// them.
fn same_items<T>(now: &[T], then: &[T], elapsed: Duration, same: fn(&T, &T, i64) -> bool) -> bool {
    let elapsed = elapsed.as_secs() as i64;
    now.len() == then.len() && now.iter().zip(then).all(|(n, t)| same(n, t, elapsed))
}

impl Substance for Vec<NodeView> {
    fn same_as(&self, earlier: &Self, elapsed: Duration) -> bool {
        same_items(self, earlier, elapsed, same_node)
    }
}

fn same_node(now: &NodeView, then: &NodeView, elapsed: i64) -> bool {
    // Every field named, so that a field added later is compared too.
    let NodeView {
        id,
        state,
        gpu_free,
        gpu_total,
        memory_gb,
        disk_free_gb,
        disk_total_gb,
        classes,
        fabrics,
        replicas,
        last_seen_ago,
        unhealthy,
    } = now;
    *id == then.id
        && *state == then.state
        && *gpu_free == then.gpu_free
        && *gpu_total == then.gpu_total
        && *memory_gb == then.memory_gb
        && *disk_free_gb == then.disk_free_gb
        && *disk_total_gb == then.disk_total_gb
        && *classes == then.classes
        && *fabrics == then.fabrics
        && *replicas == then.replicas
        && *unhealthy == then.unhealthy
        && same_last_seen(last_seen_ago, &then.last_seen_ago, elapsed)
}

/// The time since a node's last heartbeat starts again at every heartbeat:
/// while the agent reports, its seconds are not news. Going silent is,
/// coming back is, and so is a silence that did not grow with the clock
/// (a heartbeat came and went between the two answers); a silence that
/// grew with it is time passing. A value that is not a duration is compared
/// as it is.
fn same_last_seen(now: &str, then: &str, elapsed: i64) -> bool {
    if now == then {
        return true;
    }
    match (parse_duration(now), parse_duration(then)) {
        (Some(now), Some(then)) => match (now >= SILENT_SEC, then >= SILENT_SEC) {
            (false, false) => true,
            (true, true) => (now - then - elapsed).abs() <= CLOCK_SLACK_SECONDS,
            _ => false,
        },
        _ => false,
    }
}

impl Substance for Vec<ReplicaView> {
    fn same_as(&self, earlier: &Self, elapsed: Duration) -> bool {
        same_items(self, earlier, elapsed, same_replica)
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

    fn node(last_seen: &str) -> NodeView {
        NodeView {
            id: "gpu-01".into(),
            gpu_total: 8,
            last_seen_ago: last_seen.into(),
            ..NodeView::default()
        }
    }

    #[test]
    fn a_heartbeat_is_not_news_but_going_silent_and_coming_back_are() {
        let five = Duration::from_secs(5);
        let same = |now: &str, then: &str| vec![node(now)].same_as(&vec![node(then)], five);
        assert!(same("1s", "4s"), "a heartbeat between the two answers");
        assert!(same("1m59s", "2s"));
        assert!(!same("2m0s", "1m55s"), "gone silent");
        assert!(!same("1s", "5m0s"), "come back");
        assert!(same("5m5s", "5m0s"), "silent as the clock runs");
        assert!(!same("2m30s", "5m0s"), "a heartbeat came and went");
        assert!(same("-", "-"));
        assert!(!same("-", "1s"), "no longer a duration");
        let mut fuller = node("3s");
        fuller.gpu_free = 2;
        assert!(!vec![fuller].same_as(&vec![node("3s")], five));
        let mut sick = node("3s");
        sick.unhealthy = vec!["GPU 3: XID 79".into()];
        assert!(!vec![sick].same_as(&vec![node("1s")], five));
        assert!(!Vec::<NodeView>::new().same_as(&vec![node("1s")], five));
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
