//! A bounded number of places per key (a peer's address), per group of
//! keys (its network) and in all: connections and open change streams are
//! both held this way. A place is freed when it is dropped, so a connection
//! or a stream that ends by any path, an error or a panic included, gives
//! its place back.
//!
//! When the bound of a group or the bound in all is reached, a newcomer
//! holding clearly less than the largest holder takes one of that holder's
//! places: the oldest is told to yield ([`Place::yielded`]) and no longer
//! counts. So a crowd, however many addresses it has, can fill the console
//! only until someone else arrives: a health check or an operator's page
//! always finds a place, and the crowd shares what is left. A newcomer as
//! large as the largest is refused, so equals never take turns evicting
//! each other.

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::Notify;

#[derive(Debug)]
pub struct Places<G: Eq + Hash, K: Eq + Hash> {
    inner: Arc<Inner<G, K>>,
}

impl<G: Eq + Hash, K: Eq + Hash> Clone for Places<G, K> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
        }
    }
}

#[derive(Debug)]
struct Inner<G, K> {
    bounds: Bounds,
    next_id: AtomicU64,
    taken: Mutex<Taken<G, K>>,
}

/// How many places one key, one group and everyone may hold.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    pub per_key: usize,
    pub per_group: usize,
    pub in_all: usize,
}

#[derive(Debug)]
struct Taken<G, K> {
    groups: HashMap<G, Group<K>>,
    in_all: usize,
    /// Places told to yield whose holders have not yet let go: they count
    /// against [`Bounds::in_all`] no more, but still hold a descriptor.
    yielding: usize,
}

#[derive(Debug)]
struct Group<K> {
    held: usize,
    keys: HashMap<K, Holder>,
}

#[derive(Debug, Default)]
struct Holder {
    /// The places held, oldest first, each with the way to tell it to go.
    places: BTreeMap<u64, Arc<Notify>>,
}

/// One place, held until dropped.
#[derive(Debug)]
pub struct Place<G: Eq + Hash, K: Eq + Hash> {
    places: Places<G, K>,
    group: G,
    key: K,
    id: u64,
    told: Arc<Notify>,
}

impl<G: Eq + Hash, K: Eq + Hash> Place<G, K> {
    /// Resolves once a newcomer has taken this place: its holder should
    /// end what it holds, promptly but politely.
    pub async fn yielded(&self) {
        self.told.notified().await;
    }
}

/// Who must yield for a newcomer, if anyone.
enum Room<G, K> {
    Free,
    From(G, K),
    None,
}

impl<G: Eq + Hash + Clone, K: Eq + Hash + Clone> Places<G, K> {
    pub fn new(bounds: Bounds) -> Self {
        Self {
            inner: Arc::new(Inner {
                bounds,
                next_id: AtomicU64::new(0),
                taken: Mutex::new(Taken {
                    groups: HashMap::new(),
                    in_all: 0,
                    yielding: 0,
                }),
            }),
        }
    }

    /// A place for `key` of `group`, or `None` when the key holds its
    /// bound, or the group's or the overall bound is reached and nobody
    /// holds clearly more than the newcomer.
    pub fn take(&self, group: G, key: K) -> Option<Place<G, K>> {
        self.take_within(group, key, self.inner.bounds)
    }

    fn take_within(&self, group: G, key: K, bounds: Bounds) -> Option<Place<G, K>> {
        let mut taken = self.lock();
        let (in_group, by_key) = taken.groups.get(&group).map_or((0, 0), |g| {
            (g.held, g.keys.get(&key).map_or(0, |h| h.places.len()))
        });
        if by_key >= bounds.per_key {
            return None;
        }
        // Those told to yield still hold descriptors: a burst of newcomers
        // may overrun the bound in all by a little, never by much.
        if taken.in_all + taken.yielding >= bounds.in_all + (bounds.in_all / 16).max(1) {
            return None;
        }
        let room = if in_group >= bounds.per_group {
            taken.largest_in(&group, by_key)
        } else if taken.in_all >= bounds.in_all {
            match taken.largest_group() {
                Some((largest, held)) if largest != group && held >= in_group + 2 => {
                    taken.largest_in(&largest, 0)
                }
                _ => taken.largest_in(&group, by_key),
            }
        } else {
            Room::Free
        };
        match room {
            Room::Free => {}
            Room::From(g, k) => taken.evict(&g, &k),
            Room::None => return None,
        }
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let told = Arc::new(Notify::new());
        let entry = taken.groups.entry(group.clone()).or_insert_with(|| Group {
            held: 0,
            keys: HashMap::new(),
        });
        entry.held += 1;
        entry
            .keys
            .entry(key.clone())
            .or_default()
            .places
            .insert(id, told.clone());
        taken.in_all += 1;
        Some(Place {
            places: self.clone(),
            group,
            key,
            id,
            told,
        })
    }

    /// Places held now, for every key, not counting those yielding.
    pub fn count(&self) -> usize {
        self.lock().in_all
    }

    /// Half or more of the places in all are held.
    pub fn crowded(&self) -> bool {
        self.count() * 2 >= self.inner.bounds.in_all
    }
}

impl<G: Eq + Hash + Clone, K: Eq + Hash + Clone> Taken<G, K> {
    fn largest_group(&self) -> Option<(G, usize)> {
        self.groups
            .iter()
            .max_by_key(|(_, g)| g.held)
            .map(|(id, g)| (id.clone(), g.held))
    }

    /// The largest holder of `group`, if it holds two or more places than
    /// a newcomer already holding `newcomer`: taking one of its places
    /// leaves it no smaller than the newcomer.
    fn largest_in(&self, group: &G, newcomer: usize) -> Room<G, K> {
        let Some(largest) = self
            .groups
            .get(group)
            .and_then(|g| g.keys.iter().max_by_key(|(_, h)| h.places.len()))
        else {
            return Room::None;
        };
        if largest.1.places.len() >= newcomer + 2 {
            Room::From(group.clone(), largest.0.clone())
        } else {
            Room::None
        }
    }

    /// Tells the oldest place of `key` to yield, and stops counting it.
    fn evict(&mut self, group: &G, key: &K) {
        let Some(g) = self.groups.get_mut(group) else {
            return;
        };
        let Some(holder) = g.keys.get_mut(key) else {
            return;
        };
        if let Some((_, told)) = holder.places.pop_first() {
            told.notify_one();
            g.held -= 1;
            self.in_all -= 1;
            self.yielding += 1;
        }
        self.forget_if_empty(group, key);
    }
}

impl<G: Eq + Hash, K: Eq + Hash> Taken<G, K> {
    /// A peer seen once is not remembered for ever.
    fn forget_if_empty(&mut self, group: &G, key: &K) {
        if let Some(g) = self.groups.get_mut(group) {
            if g.keys.get(key).is_some_and(|h| h.places.is_empty()) {
                g.keys.remove(key);
            }
            if g.keys.is_empty() {
                self.groups.remove(group);
            }
        }
    }
}

impl<G: Eq + Hash, K: Eq + Hash> Places<G, K> {
    fn lock(&self) -> std::sync::MutexGuard<'_, Taken<G, K>> {
        self.inner
            .taken
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl<G: Eq + Hash, K: Eq + Hash> Drop for Place<G, K> {
    fn drop(&mut self) {
        let mut taken = self.places.lock();
        let held = taken
            .groups
            .get_mut(&self.group)
            .and_then(|g| {
                let removed = g.keys.get_mut(&self.key)?.places.remove(&self.id);
                removed.map(|_| g.held -= 1)
            })
            .is_some();
        if held {
            taken.in_all -= 1;
            taken.forget_if_empty(&self.group, &self.key);
        } else {
            // It had been told to yield, and no longer counted.
            taken.yielding -= 1;
        }
    }
}

/// The network an address is grouped by: an IPv4 address's /24, an IPv6
/// address's /64 (what one site or one host is given, so a new address
/// each time buys no new room).
pub fn network_of(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V4(v4) => {
            let [a, b, c, _] = v4.octets();
            IpAddr::V4(Ipv4Addr::new(a, b, c, 0))
        }
        IpAddr::V6(v6) => {
            let [a, b, c, d, ..] = v6.segments();
            IpAddr::V6(Ipv6Addr::new(a, b, c, d, 0, 0, 0, 0))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds(per_key: usize, per_group: usize, in_all: usize) -> Bounds {
        Bounds {
            per_key,
            per_group,
            in_all,
        }
    }

    #[test]
    fn a_key_holds_no_more_than_its_bound() {
        let places = Places::new(bounds(2, 10, 10));
        let _a1 = places.take("net", "a").expect("room");
        let _a2 = places.take("net", "a").expect("room");
        assert!(places.take("net", "a").is_none(), "a third for one key");
        assert!(
            places.take("net", "b").is_some(),
            "another key is not held up"
        );
    }

    #[test]
    fn a_newcomer_takes_the_oldest_place_of_the_largest_holder() {
        let places = Places::new(bounds(10, 10, 4));
        let crowd: Vec<_> = (0..4)
            .map(|_| places.take("x", "a").expect("room"))
            .collect();
        let newcomer = places.take("y", "b").expect("the crowd yields");
        assert_eq!(places.count(), 4, "the yielding place no longer counts");
        // The oldest was told; the others were not.
        let told = |p: &Place<&str, &str>| {
            let future = p.yielded();
            let mut future = std::pin::pin!(future);
            let waker = std::task::Waker::noop();
            future
                .as_mut()
                .poll(&mut std::task::Context::from_waker(waker))
                .is_ready()
        };
        assert!(told(&crowd[0]));
        assert!(crowd[1..].iter().all(|p| !told(p)));
        assert!(!told(&newcomer));
        drop(crowd);
        assert_eq!(places.count(), 1);
        assert_eq!(places.lock().yielding, 0);
        assert_eq!(places.lock().groups.len(), 1, "the crowd is forgotten");
    }

    #[test]
    fn equals_do_not_take_turns() {
        let places = Places::new(bounds(10, 10, 4));
        let _a: Vec<_> = (0..2)
            .map(|_| places.take("x", "a").expect("room"))
            .collect();
        let _b: Vec<_> = (0..2)
            .map(|_| places.take("y", "b").expect("room"))
            .collect();
        assert!(
            places.take("y", "b").is_none(),
            "b already holds as much as a"
        );
        assert!(places.take("z", "c").is_some(), "c holds nothing");
    }

    #[test]
    fn a_full_group_yields_to_its_own_newcomer_and_to_no_other() {
        let places = Places::new(bounds(10, 3, 100));
        let _crowd: Vec<_> = (0..3)
            .map(|_| places.take("net", "a").expect("room"))
            .collect();
        assert!(places.take("net", "a").is_none(), "the group is full");
        assert!(places.take("net", "b").is_some(), "b holds less than a");
        assert!(
            places.take("other", "c").is_some(),
            "another group has room"
        );
    }

    #[test]
    fn yielding_places_overrun_the_bound_by_a_little_only() {
        let places = Places::new(bounds(1_000, 1_000, 32));
        let mut crowd: Vec<_> = (0..32).map(|_| places.take(0, 0).expect("room")).collect();
        let newcomers: Vec<_> = (1..=10).filter_map(|i| places.take(1, i)).collect();
        // Two places more than the bound, then no more until the crowd lets go.
        assert_eq!(newcomers.len(), 2);
        crowd.drain(..2);
        assert!(places.take(1, 100).is_some());
    }

    #[test]
    fn networks_are_a_v4_slash_24_and_a_v6_slash_64() {
        let net = |s: &str| network_of(s.parse().expect("an address")).to_string();
        assert_eq!(net("10.1.2.3"), "10.1.2.0");
        assert_eq!(net("::ffff:10.1.2.3"), "10.1.2.0");
        assert_eq!(net("2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::");
    }
}
