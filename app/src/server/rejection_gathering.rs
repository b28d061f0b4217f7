//! When, and about which models, the node pages' index of rejections is
//! gathered. A round asks llmgw for the explanations of the models worth
//! explaining whose own state moved since theirs was read (or that were
//! never read, or whose reading is old), keeps the rest from the last
//! index, and publishes what it has as it goes, so that a node page renders
//! at once and says what is still to come. A round starts only when a node
//! page is read and the lists have moved since the last one (or a change
//! was made through the console): while the cluster is still, llmgw is
//! asked nothing.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::rejection_index::{Gathering, IndexBuilder, RejectionIndex, worth_explaining};
use crate::admin_api::types::ModelView;

/// A model's explanation is read again after this long even if its own
/// state did not move: a node's state moving changes its reasons too.
pub const EXPLANATION_MAX_AGE: Duration = Duration::from_secs(5 * 60);

/// Rounds start at most this often while the lists keep moving.
pub const ROUND_EVERY: Duration = Duration::from_secs(30);

/// The models a round asks about, and those whose rejections it keeps.
#[derive(Debug, Default, PartialEq)]
pub struct Plan {
    pub ask: Vec<ModelView>,
    pub keep: HashSet<String>,
}

#[derive(Debug, Default)]
struct Rounds {
    running: bool,
    /// The lists' generation when the last round ended, and when.
    last: Option<(u64, Instant)>,
    /// Set by a change made through the console: the next round asks
    /// about every model worth explaining.
    forced: bool,
    /// Each model read, as it was when it was read, and when.
    read: HashMap<String, (ModelView, Instant)>,
}

#[derive(Debug)]
pub struct RejectionGathering {
    current: Mutex<Arc<RejectionIndex>>,
    rounds: Mutex<Rounds>,
    /// Counts the rounds ended, for whoever waits on one.
    ended: watch::Sender<u64>,
}

impl Default for RejectionGathering {
    fn default() -> Self {
        Self {
            current: Mutex::default(),
            rounds: Mutex::default(),
            ended: watch::Sender::new(0),
        }
    }
}

impl RejectionGathering {
    /// The index as it stands.
    pub fn current(&self) -> Arc<RejectionIndex> {
        self.current
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub fn publish(&self, index: RejectionIndex) {
        *self.current.lock().unwrap_or_else(PoisonError::into_inner) = Arc::new(index);
    }

    /// Resolves when the round under way (or the next) ends.
    pub fn ended(&self) -> watch::Receiver<u64> {
        self.ended.subscribe()
    }

    /// The next round's plan, if one is due: none is while one runs, and
    /// none while the lists have not moved since the last, unless forced.
    /// A plan returned is a round started; hold [`Self::round`] while it
    /// runs.
    /// Explanations that failed are asked again `retry` after.
    pub fn start(
        &self,
        catalog: &[ModelView],
        generation: u64,
        now: Instant,
        retry: Duration,
    ) -> Option<Plan> {
        let mut rounds = self.rounds.lock().unwrap_or_else(PoisonError::into_inner);
        if rounds.running {
            return None;
        }
        let failed = !self.current().unexplained().is_empty();
        let due = match rounds.last {
            None => true,
            Some(_) if rounds.forced => true,
            // A round that stopped halfway: a round's time, failures or not.
            Some((UNSEEN, at)) => now.duration_since(at) >= ROUND_EVERY,
            Some((_, at)) if failed => now.duration_since(at) >= retry,
            Some((seen, at)) => seen != generation && now.duration_since(at) >= ROUND_EVERY,
        };
        if !due {
            return None;
        }
        let forced = std::mem::take(&mut rounds.forced);
        let mut plan = Plan::default();
        for model in catalog.iter().filter(|m| worth_explaining(m)) {
            let unmoved = rounds.read.get(&model.name).is_some_and(|(was, at)| {
                was == model && now.duration_since(*at) < EXPLANATION_MAX_AGE
            });
            if unmoved && !forced {
                plan.keep.insert(model.name.clone());
            } else {
                plan.ask.push(model.clone());
            }
        }
        rounds.running = true;
        drop(rounds);
        if !plan.ask.is_empty() {
            // Said as the round starts, not when its task first runs: a page
            // rendered in between would take the last index for whole. The
            // copy is made outside the rounds' lock.
            let of = plan.ask.len();
            let current = self.current();
            self.publish(current.with_gathering(Some(Gathering { read: 0, of })));
        }
        Some(plan)
    }

    /// The round a started plan is: held while it runs, ended with
    /// [`Round::end`]. A round dropped before its end (its task panicked or
    /// was cancelled) still ends, so that a later one can start.
    pub fn round(&self) -> Round<'_> {
        Round {
            gathering: self,
            ended: false,
        }
    }

    /// Ends a round; an index still said to be gathering is said to be
    /// whole, so that no page waits for a round that is over.
    fn finish(&self, read: Vec<ModelView>, seen: u64, now: Instant, keep: &HashSet<String>) {
        let current = self.current();
        if current.gathering().is_some() {
            self.publish(current.with_gathering(None));
        }
        let mut rounds = self.rounds.lock().unwrap_or_else(PoisonError::into_inner);
        rounds.read.retain(|name, _| keep.contains(name));
        for model in read {
            rounds.read.insert(model.name.clone(), (model, now));
        }
        rounds.running = false;
        rounds.last = Some((seen, now));
        drop(rounds);
        self.ended.send_modify(|n| *n += 1);
    }

    /// After a change made through the console, the next round asks again.
    pub fn force(&self) {
        self.rounds
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .forced = true;
    }

    /// Whether a round would leave the index as it is: it asks nothing,
    /// lets nothing go and has no failure to ask again. Such a round ends
    /// at once rather than build the index again entry by entry (its
    /// models stay in the catalog order it was built in until a round reads
    /// again).
    pub fn stands(&self, plan: &Plan) -> bool {
        plan.ask.is_empty() && self.current().holds_only(&plan.keep)
    }

    /// A round's first index: what it keeps, before anything is read.
    pub fn kept(&self, plan: &Plan) -> IndexBuilder {
        let mut builder = IndexBuilder::default();
        builder.carry(&self.current(), |model| plan.keep.contains(model));
        builder
    }
}

/// A round under way; see [`RejectionGathering::round`].
#[must_use = "a round ends when it is dropped"]
pub struct Round<'a> {
    gathering: &'a RejectionGathering,
    ended: bool,
}

/// The generation an abandoned round says it saw: none the lists will
/// reach, so the next round waits only for its time.
const UNSEEN: u64 = u64::MAX;

impl Round<'_> {
    /// Ends the round: `read` are the models whose explanation was read,
    /// `generation` the lists' once its index is published; the models
    /// neither read nor in `keep` are forgotten.
    pub fn end(
        mut self,
        read: Vec<ModelView>,
        generation: u64,
        now: Instant,
        keep: &HashSet<String>,
    ) {
        self.ended = true;
        self.gathering.finish(read, generation, now, keep);
    }
}

impl Drop for Round<'_> {
    fn drop(&mut self) {
        if !self.ended {
            // What the index holds of a round that stopped is not known (a
            // forced round carries nothing over), so every model is
            // forgotten: the next round asks about them all again.
            self.gathering
                .finish(Vec::new(), UNSEEN, Instant::now(), &HashSet::new());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RETRY: Duration = Duration::from_secs(1);

    fn model(name: &str, ready: i64) -> ModelView {
        ModelView {
            name: name.into(),
            ready,
            min: 1,
            total: 1,
            ..ModelView::default()
        }
    }

    fn names(models: &[ModelView]) -> Vec<&str> {
        models.iter().map(|m| m.name.as_str()).collect()
    }

    #[test]
    fn a_round_asks_about_models_short_of_their_count_only() {
        let gathering = RejectionGathering::default();
        let catalog = [model("placed", 1), model("stuck", 0)];
        let now = Instant::now();
        let plan = gathering
            .start(&catalog, 0, now, RETRY)
            .expect("the first round");
        assert_eq!(names(&plan.ask), ["stuck"]);
        assert_eq!(
            gathering.current().gathering(),
            Some(Gathering { read: 0, of: 1 }),
            "said from the start, before the round's task runs"
        );
        assert!(
            gathering.start(&catalog, 0, now, RETRY).is_none(),
            "one round at a time"
        );
        gathering.round().end(plan.ask.clone(), 0, now, &plan.keep);
        assert_eq!(gathering.current().gathering(), None, "whole once ended");
        let later = now + ROUND_EVERY * 2;
        assert!(
            gathering.start(&catalog, 0, later, RETRY).is_none(),
            "nothing while the lists are still"
        );
    }

    #[test]
    fn when_the_lists_move_only_models_that_moved_are_asked_again() {
        let gathering = RejectionGathering::default();
        let now = Instant::now();
        let catalog = [model("a", 0), model("b", 0)];
        let plan = gathering.start(&catalog, 0, now, RETRY).expect("first");
        gathering.round().end(plan.ask, 0, now, &plan.keep);
        let soon = now + ROUND_EVERY / 2;
        assert!(
            gathering.start(&catalog, 1, soon, RETRY).is_none(),
            "not twice in a round's time"
        );
        let moved = [
            model("a", 0),
            ModelView {
                total: 2,
                ..model("b", 0)
            },
        ];
        let later = now + ROUND_EVERY;
        let plan = gathering
            .start(&moved, 1, later, RETRY)
            .expect("the lists moved");
        assert_eq!(names(&plan.ask), ["b"]);
        assert!(plan.keep.contains("a"));
        gathering.round().end(plan.ask, 1, later, &plan.keep);
        // Long unread, a model is asked again with the next move.
        let much_later = now + EXPLANATION_MAX_AGE;
        let plan = gathering
            .start(&moved, 2, much_later, RETRY)
            .expect("moved again");
        assert_eq!(names(&plan.ask), ["a"]);
    }

    #[test]
    fn a_round_that_stops_halfway_lets_the_next_start_a_round_later() {
        let gathering = RejectionGathering::default();
        let catalog = [model("stuck", 0)];
        let now = Instant::now();
        let plan = gathering.start(&catalog, 0, now, RETRY).expect("first");
        let stopped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _round = gathering.round();
            let partial = Gathering { read: 0, of: 1 };
            gathering.publish(IndexBuilder::default().snapshot(&catalog, Some(partial)));
            panic!("the round's task fails");
        }));
        assert!(stopped.is_err());
        assert_eq!(*gathering.ended().borrow(), 1, "waiters are woken");
        assert_eq!(
            gathering.current().gathering(),
            None,
            "nothing still to come"
        );
        let soon = Instant::now();
        assert!(
            gathering.start(&catalog, 0, soon, RETRY).is_none(),
            "not at once: a round that keeps failing is not retried in a loop"
        );
        let plan_again = gathering
            .start(&catalog, 0, soon + ROUND_EVERY, RETRY)
            .expect("a round's time later, whatever the generation");
        assert_eq!(plan_again.ask, plan.ask);
    }

    #[test]
    fn after_a_round_that_stopped_every_model_is_asked_again() {
        let gathering = RejectionGathering::default();
        let catalog = [model("a", 0), model("b", 0)];
        let now = Instant::now();
        let plan = gathering.start(&catalog, 0, now, RETRY).expect("first");
        gathering.round().end(plan.ask, 0, now, &plan.keep);
        // A forced round carries nothing over, then stops halfway.
        gathering.force();
        let forced = gathering.start(&catalog, 0, now, RETRY).expect("forced");
        drop(gathering.round());
        assert!(forced.keep.is_empty());
        let later = Instant::now() + ROUND_EVERY;
        let plan = gathering
            .start(&catalog, 0, later, RETRY)
            .expect("a round's time later");
        assert_eq!(names(&plan.ask), ["a", "b"], "nothing is taken as read");
    }

    #[test]
    fn a_round_with_nothing_to_ask_does_not_say_it_is_gathering() {
        let gathering = RejectionGathering::default();
        let now = Instant::now();
        let catalog = [model("a", 0)];
        let plan = gathering.start(&catalog, 0, now, RETRY).expect("first");
        gathering.round().end(plan.ask, 0, now, &plan.keep);
        let later = now + ROUND_EVERY;
        let plan = gathering
            .start(&catalog, 1, later, RETRY)
            .expect("the lists moved");
        assert!(plan.ask.is_empty());
        assert_eq!(gathering.current().gathering(), None);
        assert!(gathering.stands(&plan), "nothing held is let go");
    }

    #[test]
    fn a_change_through_the_console_asks_about_every_model_again() {
        let gathering = RejectionGathering::default();
        let now = Instant::now();
        let catalog = [model("a", 0), model("b", 0)];
        let plan = gathering.start(&catalog, 0, now, RETRY).expect("first");
        gathering.round().end(plan.ask, 0, now, &plan.keep);
        gathering.force();
        let plan = gathering.start(&catalog, 0, now, RETRY).expect("forced");
        assert_eq!(names(&plan.ask), ["a", "b"]);
    }
}
