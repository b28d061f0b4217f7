//! The wall screen's trends: the headline figures of the last hours, in a
//! ring of fixed size that the console keeps itself. Samples are taken from
//! the shared poll, so no viewer means no sample (and no upstream call); a
//! wall screen looks all the time.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

use llmgw_journal::Sample;

/// At most this many samples: about 50 bytes each, 40 KiB in all.
pub const CAPACITY: usize = 720;
/// At least this many seconds between two samples: 720 of them span four
/// hours.
pub const SPACING_SECONDS: i64 = 20;

#[derive(Debug, Default)]
pub struct History {
    samples: Mutex<VecDeque<Sample>>,
}

impl History {
    /// Keeps `sample` unless the last one is less than the spacing old; the
    /// oldest falls out when the ring is full.
    pub fn record(&self, sample: Sample) {
        let mut samples = self.samples.lock().unwrap_or_else(PoisonError::into_inner);
        if samples
            .back()
            .is_some_and(|last| sample.at - last.at < SPACING_SECONDS)
        {
            return;
        }
        if samples.len() == CAPACITY {
            samples.pop_front();
        }
        samples.push_back(sample);
    }

    /// Every sample kept, oldest first.
    pub fn samples(&self) -> Vec<Sample> {
        let samples = self.samples.lock().unwrap_or_else(PoisonError::into_inner);
        samples.iter().copied().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_is_spaced_and_bounded() {
        let h = History::default();
        for i in 0..(CAPACITY as i64 * 3) {
            // Two samples per spacing: every other one is dropped.
            h.record(Sample {
                at: i * SPACING_SECONDS / 2,
                gpu_free: i,
                ..Sample::default()
            });
        }
        let kept = h.samples();
        assert_eq!(kept.len(), CAPACITY);
        assert!(
            kept.windows(2)
                .all(|w| w[1].at - w[0].at >= SPACING_SECONDS)
        );
        assert_eq!(
            kept.last().map(|s| s.gpu_free),
            Some(CAPACITY as i64 * 3 - 2)
        );
    }
}
