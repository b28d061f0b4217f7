//! Maps and sets for the joins a page makes over a whole cluster's lists.
//! On the server their keys are node ids and interned numbers by the tens of
//! thousands per request, where the standard SipHash costs more than the
//! join; foldhash is as randomly seeded and several times faster. The
//! browser's maps are small, and keep the standard hasher (no added WASM).

#[cfg(feature = "ssr")]
pub type Seed = foldhash::fast::RandomState;
#[cfg(not(feature = "ssr"))]
pub type Seed = std::hash::RandomState;

pub type FastMap<K, V> = std::collections::HashMap<K, V, Seed>;
pub type FastSet<K> = std::collections::HashSet<K, Seed>;
