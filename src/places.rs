//! A bounded number of places per key (a peer's address) and, if asked, in
//! all: connections and open change streams are both held this way. A place
//! is freed when it is dropped, so a connection or a stream that ends by
//! any path, an error or a panic included, gives its place back.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError};

#[derive(Debug)]
pub struct Places<K: Eq + Hash> {
    inner: Arc<Inner<K>>,
}

impl<K: Eq + Hash> Clone for Places<K> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
        }
    }
}

#[derive(Debug)]
struct Inner<K> {
    per_key: usize,
    in_all: usize,
    taken: Mutex<Taken<K>>,
}

#[derive(Debug)]
struct Taken<K> {
    by_key: HashMap<K, usize>,
    in_all: usize,
}

/// One place, held until dropped.
#[derive(Debug)]
pub struct Place<K: Eq + Hash> {
    places: Places<K>,
    key: K,
}

impl<K: Eq + Hash + Clone> Places<K> {
    /// At most `per_key` places for one key and `in_all` for every key.
    pub fn new(per_key: usize, in_all: usize) -> Self {
        Self {
            inner: Arc::new(Inner {
                per_key,
                in_all,
                taken: Mutex::new(Taken {
                    by_key: HashMap::new(),
                    in_all: 0,
                }),
            }),
        }
    }

    /// A place for `key`, or `None` when its own or the overall bound is
    /// reached.
    pub fn take(&self, key: K) -> Option<Place<K>> {
        let mut taken = self.lock();
        if taken.in_all >= self.inner.in_all {
            return None;
        }
        let here = taken.by_key.get(&key).copied().unwrap_or(0);
        if here >= self.inner.per_key {
            return None;
        }
        taken.by_key.insert(key.clone(), here + 1);
        taken.in_all += 1;
        Some(Place {
            places: self.clone(),
            key,
        })
    }

    /// Places held now, for every key.
    pub fn count(&self) -> usize {
        self.lock().in_all
    }
}

impl<K: Eq + Hash> Places<K> {
    fn lock(&self) -> std::sync::MutexGuard<'_, Taken<K>> {
        self.inner
            .taken
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl<K: Eq + Hash> Drop for Place<K> {
    fn drop(&mut self) {
        let mut taken = self.places.lock();
        taken.in_all -= 1;
        if let Some(here) = taken.by_key.get_mut(&self.key) {
            *here -= 1;
            if *here == 0 {
                // A peer seen once is not remembered for ever.
                taken.by_key.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_bounded_by_key_and_in_all_and_freed_on_drop() {
        let places = Places::new(2, 3);
        let a1 = places.take("a").expect("room");
        let _a2 = places.take("a").expect("room");
        assert!(places.take("a").is_none(), "a third for one key");
        let _b1 = places.take("b").expect("room");
        assert!(places.take("b").is_none(), "a fourth in all");
        assert_eq!(places.count(), 3);
        drop(a1);
        assert!(places.take("b").is_some(), "a place freed is taken again");
    }

    #[test]
    fn a_key_with_no_place_is_forgotten() {
        let places = Places::new(1, 10);
        drop(places.take(1).expect("room"));
        assert!(places.lock().by_key.is_empty());
        assert_eq!(places.count(), 0);
    }
}
