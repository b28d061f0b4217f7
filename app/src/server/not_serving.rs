//! Since when each model has not been serving, as this console saw it: the
//! time of the first read of the catalog that found it so. A model that
//! was not serving before the console started counts from the first read
//! after the start; a spell shorter than one refresh period is not seen.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

use crate::admin_api::types::ModelView;
use crate::format::ModelStatus;

#[derive(Debug, Default)]
pub struct NotServingSince(Mutex<HashMap<String, SystemTime>>);

impl NotServingSince {
    /// Takes in a new read of the catalog, made at `at`: models that
    /// serve again, or left it, are forgotten.
    pub fn observe(&self, catalog: &[ModelView], at: SystemTime) {
        let mut since = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let mut now_not_serving = HashMap::with_capacity(since.len());
        for m in catalog.iter().filter(|m| ModelStatus::not_serving(m)) {
            let first = since.get(&m.name).copied().unwrap_or(at);
            now_not_serving.insert(m.name.clone(), first);
        }
        *since = now_not_serving;
    }

    /// When `model` was first seen not serving, if it is not serving.
    pub fn since(&self, model: &str) -> Option<SystemTime> {
        let since = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        since.get(model).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn model(name: &str, min: i64, ready: i64, total: i64) -> ModelView {
        ModelView {
            name: name.into(),
            min,
            ready,
            total,
            ..ModelView::default()
        }
    }

    #[test]
    fn a_spell_counts_from_the_first_read_that_saw_it_and_ends_when_it_serves() {
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        let later = t0 + Duration::from_secs(30);
        let since = NotServingSince::default();
        since.observe(&[model("a", 1, 0, 0), model("b", 1, 1, 1)], t0);
        since.observe(&[model("a", 1, 0, 0), model("b", 2, 1, 2)], later);
        assert_eq!(since.since("a"), Some(t0), "still the first read's time");
        assert_eq!(since.since("b"), Some(later), "below its minimum since");
        since.observe(&[model("a", 1, 1, 1)], later + Duration::from_secs(30));
        assert_eq!(since.since("a"), None, "serves again");
        assert_eq!(since.since("b"), None, "gone from the catalog");
        since.observe(&[model("a", 0, 0, 0), model("c", 0, 2, 2)], later);
        assert_eq!(since.since("a"), None, "a stopped model is not missed");
        assert_eq!(since.since("c"), None, "nor one with no minimum that runs");
    }
}
