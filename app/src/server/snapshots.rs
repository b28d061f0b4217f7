//! One poll of the admin API, shared by every viewer. Each list is kept as
//! the last answer (or failure) for one refresh period; whoever asks after
//! that refreshes it, and whoever asks while a refresh is in flight waits
//! for that one instead of sending another. Upstream load is then at most
//! one call per list per period, whatever the number of tabs, and none at
//! all while nobody looks. A change made through the console expires what it
//! may have changed, so the next read asks again.
//!
//! The lists also count their moves: a new answer that differs in substance
//! from the one before (see `substance`) moves the generation the change
//! feed pushes to every open page.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, watch};

use super::page_reads::{PAGE_WAIT, PageReads};
use crate::figures::ClusterFigures;
use crate::staleness::Staleness;

use super::figures_memo::FiguresMemo;
use super::not_serving::NotServingSince;
use super::rejection_gathering::{EXPLANATION_MAX_AGE, Plan, RejectionGathering};
use super::rejection_index::{Gathering, RejectionIndex};
use super::substance::Substance;
use crate::admin_api::AdminApiError;
use crate::admin_api::types::{ExplainView, ModelView, NodeView, OrphanView, ReplicaView};
use crate::server::admin_client::{Actor, AdminApiClient};

type Answer<T> = Result<Arc<T>, AdminApiError>;

/// Explanations asked for at once, at most.
const EXPLAIN_CONCURRENCY: usize = 8;

/// How long a node page waits for a round of explanations it started, when
/// the round is small enough to be read in that time (one batch of
/// [`EXPLAIN_CONCURRENCY`]); a larger one's page renders at once with what
/// is there and says what is to come, rather than waiting for nothing.
const ROUND_WAIT: Duration = Duration::from_millis(100);

/// A round publishes what it has read at most this often.
const ROUND_PUBLISH_EVERY: Duration = Duration::from_millis(250);

/// An answer and when it came; `expired` once a change may have made it
/// wrong, kept all the same to tell whether the next one moved.
struct Kept<T> {
    at: Instant,
    expired: bool,
    answer: Answer<T>,
    /// The lists' generation when it was asked for.
    generation: u64,
    /// The last good answer and when it came: what a page shows, marked
    /// stale, while later reads fail or take long.
    good: Option<(Arc<T>, Instant)>,
    /// Since when reads have failed, while they do.
    failing_since: Option<Instant>,
}

/// The read under way: everyone who needs the list while it lasts waits
/// for its answer rather than sending another.
struct Flight<T> {
    id: u64,
    began: Instant,
    /// The expiries seen when it began: a read begun before a change is
    /// not joined by someone who must see what the change did.
    expiries: u64,
    answer: watch::Receiver<Option<Answer<T>>>,
}

/// What one list's readers share, and its reads hold while they run.
struct Shared<T> {
    last: Mutex<Option<Kept<T>>>,
    flight: Mutex<Option<Flight<T>>>,
    flights: AtomicU64,
    expiries: AtomicU64,
    /// Counts the answers that moved, when this list is one a page shows,
    /// and tells whether two answers are the same in substance.
    moves: Option<(Arc<AtomicU64>, SameAs<T>)>,
}

/// One list: its last answer, and the read that refreshes it. The read
/// runs in a task of its own, so that a page that stops waiting for it
/// (see `page_reads`) does not cancel it for everyone else.
pub(crate) struct Snapshot<T>(Arc<Shared<T>>);

/// Whether an answer (first) is the one before it (second) in substance, that
/// duration later.
type SameAs<T> = fn(&T, &T, Duration) -> bool;

impl<T> Default for Snapshot<T> {
    fn default() -> Self {
        Self::with_moves(None)
    }
}

impl<T: Substance> Snapshot<T> {
    fn counting(moves: &Arc<AtomicU64>) -> Self {
        Self::with_moves(Some((moves.clone(), T::same_as)))
    }
}

fn locked<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What a page is given in place of a list the admin API did not give in
/// time: the last good answer, and what to say about it.
struct Standing<T> {
    data: Arc<T>,
    stale: Staleness,
}

impl<T> Snapshot<T> {
    fn with_moves(moves: Option<(Arc<AtomicU64>, SameAs<T>)>) -> Self {
        Self(Arc::new(Shared {
            last: Mutex::new(None),
            flight: Mutex::new(None),
            flights: AtomicU64::new(0),
            expiries: AtomicU64::new(0),
            moves,
        }))
    }

    /// The last answer however old, and its age, without asking for a
    /// new one: for a page that shows many clusters and waits for none.
    pub(crate) fn last_known(&self) -> Option<(Answer<T>, Duration)> {
        locked(&self.0.last)
            .as_ref()
            .map(|kept| (kept.answer.clone(), kept.at.elapsed()))
    }

    fn fresh(&self, keep: &impl Fn(&Kept<T>) -> bool) -> Option<Answer<T>> {
        locked(&self.0.last)
            .as_ref()
            .filter(|kept| !kept.expired && keep(kept))
            .map(|kept| kept.answer.clone())
    }

    /// The last good answer, as a page shows it while `failure` stands, a
    /// read under way since `waiting_since` or failing.
    fn standing(&self, failure: AdminApiError, waiting_since: Instant) -> Option<Standing<T>> {
        let last = locked(&self.0.last);
        let kept = last.as_ref()?;
        let (data, at) = kept.good.clone()?;
        let failing_since = kept
            .failing_since
            .map_or(waiting_since, |f| f.min(waiting_since));
        Some(Standing {
            data,
            stale: Staleness {
                data_age_secs: at.elapsed().as_secs(),
                failing_for_secs: Some(failing_since.elapsed().as_secs()),
                why: failure.into(),
            },
        })
    }

    fn expire(&self) {
        self.0.expiries.fetch_add(1, Ordering::SeqCst);
        if let Some(kept) = locked(&self.0.last).as_mut() {
            kept.expired = true;
        }
    }
}

impl<T: Send + Sync + 'static> Snapshot<T> {
    /// The answer at most `max_age` old. Read while a page is served, it
    /// may be the last good one in place of one that fails or is slow
    /// (see `page_reads`); the request's notes are found when the read is
    /// made, not when it is first polled.
    pub(crate) fn get<F, Fut>(
        &self,
        max_age: Duration,
        fetch: F,
    ) -> impl Future<Output = Answer<T>> + Send + '_
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, AdminApiError>> + Send + 'static,
    {
        self.read(max_age, PageReads::current(), fetch)
    }

    fn read<F, Fut>(
        &self,
        max_age: Duration,
        page: Option<PageReads>,
        fetch: F,
    ) -> impl Future<Output = Answer<T>> + Send + '_
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, AdminApiError>> + Send + 'static,
    {
        self.get_kept(
            Box::new(move |kept: &Kept<T>| kept.at.elapsed() < max_age),
            0,
            page,
            boxed(fetch),
        )
    }

    /// What the admin API answers now, never the last good answer in its
    /// place: what a change is checked against.
    pub(crate) async fn get_now<F, Fut>(&self, fetch: F) -> Answer<T>
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, AdminApiError>> + Send + 'static,
    {
        self.get_kept(Box::new(|_: &Kept<T>| false), 0, None, boxed(fetch))
            .await
    }

    /// An answer worked out from the lists: kept while they have not moved
    /// since (`generation`), up to `at_most`; a failure for `max_age` only.
    pub(crate) fn get_unmoved<F, Fut>(
        &self,
        max_age: Duration,
        generation: u64,
        at_most: Duration,
        fetch: F,
    ) -> impl Future<Output = Answer<T>> + Send + '_
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, AdminApiError>> + Send + 'static,
    {
        let keep = move |kept: &Kept<T>| {
            let age = kept.at.elapsed();
            age < max_age || (kept.answer.is_ok() && kept.generation == generation && age < at_most)
        };
        self.get_kept(
            Box::new(keep),
            generation,
            PageReads::current(),
            boxed(fetch),
        )
    }

    /// One read path per kind of answer, not one per call site: each
    /// would be another copy of this and of a task's machinery in the
    /// binary, which has a size budget.
    async fn get_kept(
        &self,
        keep: Keep<T>,
        generation: u64,
        page: Option<PageReads>,
        fetch: Fetch<T>,
    ) -> Answer<T> {
        if let Some(answer) = self.fresh(&keep) {
            // Measured: when a page's data was ready at the first poll, the
            // server render of /nodes at 1,000 nodes took 52 ms instead of
            // 15 ms (Leptos then renders the suspended view more than once).
            // Yielding once costs microseconds.
            tokio::task::yield_now().await;
            return self.shown(answer, Instant::now(), page.as_ref());
        }
        let (mut answer, began) = match self.join_or_start(&keep, generation, fetch) {
            Ok(answer) => return self.shown(answer, Instant::now(), page.as_ref()),
            Err(flight) => flight,
        };
        let arrived = async {
            match answer.wait_for(Option::is_some).await {
                Ok(got) => got.clone(),
                // The read's task is gone without a word: the runtime
                // is shutting down.
                Err(_) => None,
            }
        };
        let answer = match &page {
            None => arrived.await.unwrap_or_else(|| Err(slow(began))),
            Some(page) => match tokio::time::timeout_at(page.until(), arrived).await {
                Ok(Some(answer)) => answer,
                Ok(None) | Err(_) => Err(slow(began)),
            },
        };
        self.shown(answer, began, page.as_ref())
    }

    /// What a page is given for `answer`: a failure gives it the last good
    /// answer in its place, noted stale; anyone else is given the failure.
    fn shown(
        &self,
        answer: Answer<T>,
        waiting_since: Instant,
        page: Option<&PageReads>,
    ) -> Answer<T> {
        let (Err(failure), Some(page)) = (&answer, page) else {
            return answer;
        };
        match self.standing(failure.clone(), waiting_since) {
            Some(Standing { data, stale }) => {
                page.note(stale);
                Ok(data)
            }
            None => answer,
        }
    }

    /// Joins the read under way, or starts one; or, if one ended while
    /// this waited for the lock, its answer.
    fn join_or_start(
        &self,
        keep: &Keep<T>,
        generation: u64,
        fetch: Fetch<T>,
    ) -> Result<Answer<T>, Joined<T>> {
        let shared = &self.0;
        let mut flight = locked(&shared.flight);
        if let Some(answer) = self.fresh(keep) {
            return Ok(answer);
        }
        let expiries = shared.expiries.load(Ordering::SeqCst);
        if let Some(f) = flight.as_ref().filter(|f| f.expiries == expiries) {
            return Err((f.answer.clone(), f.began));
        }
        let id = shared.flights.fetch_add(1, Ordering::Relaxed);
        let (tell, answer) = watch::channel(None);
        let began = Instant::now();
        *flight = Some(Flight {
            id,
            began,
            expiries,
            answer: answer.clone(),
        });
        let landing = Landing {
            shared: shared.clone(),
            id,
        };
        let read = fetch();
        let task: std::pin::Pin<Box<dyn Future<Output = ()> + Send>> = Box::pin(async move {
            let answer = read.await.map(Arc::new);
            landing.store(answer.clone(), generation, expiries);
            let _ = tell.send(Some(answer));
        });
        // Boxed: one task type for every kind of list.
        tokio::spawn(task);
        Err((answer, began))
    }
}

/// Whether a kept answer may be given as it is.
type Keep<T> = Box<dyn Fn(&Kept<T>) -> bool + Send + Sync>;

/// A read of the admin API, made when one is due.
type Fetch<T> = Box<dyn FnOnce() -> BoxedRead<T> + Send>;
type BoxedRead<T> =
    std::pin::Pin<Box<dyn Future<Output = Result<T, AdminApiError>> + Send + 'static>>;

fn boxed<T, F, Fut>(fetch: F) -> Fetch<T>
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: Future<Output = Result<T, AdminApiError>> + Send + 'static,
{
    Box::new(move || Box::pin(fetch()) as BoxedRead<T>)
}

/// A read joined: its answer to come, and when it began.
type Joined<T> = (watch::Receiver<Option<Answer<T>>>, Instant);

/// Where a read's answer lands; dropped with its task however that ends,
/// so a read that panicked leaves no flight behind for others to wait on.
struct Landing<T> {
    shared: Arc<Shared<T>>,
    id: u64,
}

impl<T> Landing<T> {
    fn store(&self, answer: Answer<T>, generation: u64, expiries: u64) {
        let shared = &self.shared;
        let at = Instant::now();
        let mut last = locked(&shared.last);
        if let (Some((moves, same_as)), Some(before)) = (&shared.moves, last.as_ref()) {
            let moved = match (&before.answer, &answer) {
                (Ok(old), Ok(new)) => !same_as(new, old, at.duration_since(before.at)),
                // Failing or recovering is pushed by the feed's own flag.
                _ => false,
            };
            if moved {
                moves.fetch_add(1, Ordering::Relaxed);
            }
        }
        let before = last.take();
        let (good, failing_since) = match (&answer, before) {
            (Ok(data), _) => (Some((data.clone(), at)), None),
            (Err(_), Some(before)) => (before.good, before.failing_since.or(Some(at))),
            (Err(_), None) => (None, Some(at)),
        };
        *last = Some(Kept {
            at,
            // A change made while it was read may not be in it.
            expired: shared.expiries.load(Ordering::SeqCst) != expiries,
            answer,
            generation,
            good,
            failing_since,
        });
    }
}

impl<T> Drop for Landing<T> {
    fn drop(&mut self) {
        let mut flight = locked(&self.shared.flight);
        if flight.as_ref().is_some_and(|f| f.id == self.id) {
            *flight = None;
        }
    }
}

/// What a page is told of a read that has not answered in its time.
fn slow(began: Instant) -> AdminApiError {
    AdminApiError::Slow {
        waited_secs: began.elapsed().as_secs().max(PAGE_WAIT.as_secs()),
    }
}

/// One answer per model, shared like the lists. An entry goes once it is
/// older than [`EXPLANATION_MAX_AGE`] and nobody is reading it, so the
/// map holds the models looked at lately, not every one ever asked about.
struct PerModel<T>(Mutex<HashMap<String, Arc<Snapshot<T>>>>);

impl<T> Default for PerModel<T> {
    fn default() -> Self {
        Self(Mutex::default())
    }
}

impl<T> PerModel<T> {
    /// The snapshot of `model`, if one is kept; none is made.
    fn kept(&self, model: &str) -> Option<Arc<Snapshot<T>>> {
        let map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        map.get(model).cloned()
    }

    fn entry(&self, model: &str) -> Arc<Snapshot<T>> {
        let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if !map.contains_key(model) {
            map.retain(|_, s| {
                Arc::strong_count(s) > 1
                    || s.fresh(&|k| k.at.elapsed() < EXPLANATION_MAX_AGE).is_some()
            });
        }
        map.entry(model.to_string()).or_default().clone()
    }

    fn expire(&self) {
        let map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        for snapshot in map.values() {
            snapshot.expire();
        }
    }
}

/// One list's last read: its answer or failure, and how long ago.
pub struct KnownRead<T> {
    pub answer: Answer<T>,
    pub age: Duration,
}

/// A list never read yet is `None`.
pub type Known<T> = Option<KnownRead<T>>;

/// The four lists as last read.
pub struct KnownLists {
    pub nodes: Known<Vec<NodeView>>,
    pub models: Known<Vec<ModelView>>,
    pub replicas: Known<Vec<ReplicaView>>,
    pub orphans: Known<Vec<OrphanView>>,
}

/// Every list the pages read, shared by every request of one console.
pub struct Snapshots {
    api: Arc<AdminApiClient>,
    period: Duration,
    nodes: Snapshot<Vec<NodeView>>,
    models: Snapshot<Vec<ModelView>>,
    replicas: Snapshot<Vec<ReplicaView>>,
    orphans: Snapshot<Vec<OrphanView>>,
    /// By model name; only for models the catalog lists, so that requests
    /// for made-up names cannot grow it.
    explains: PerModel<ExplainView>,
    /// The wall's line for each model not placed: its explanation's
    /// headline, without the explanation.
    headlines: PerModel<Option<String>>,
    rejections: RejectionGathering,
    /// Moves of the four lists, together.
    moves: Arc<AtomicU64>,
    /// Since when each model has not been serving, from the catalog's reads.
    not_serving: Arc<NotServingSince>,
    figures: FiguresMemo,
    /// Woken by a change made through the console.
    changes: Notify,
}

impl std::fmt::Debug for Snapshots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshots")
            .field("period", &self.period)
            .finish()
    }
}

/// Reads are the same for everyone, so they go as the console; llmgw only
/// records an actor beside a change.
fn reader() -> Actor {
    Actor::console()
}

impl Snapshots {
    pub fn new(api: Arc<AdminApiClient>, period: Duration) -> Self {
        let moves = Arc::new(AtomicU64::new(0));
        Self {
            api,
            period,
            nodes: Snapshot::counting(&moves),
            models: Snapshot::counting(&moves),
            replicas: Snapshot::counting(&moves),
            orphans: Snapshot::counting(&moves),
            explains: PerModel::default(),
            headlines: PerModel::default(),
            rejections: RejectionGathering::default(),
            moves,
            not_serving: Arc::default(),
            figures: FiguresMemo::default(),
            changes: Notify::new(),
        }
    }

    /// How many times the lists have moved: what an open page compares to
    /// know whether to read again.
    pub fn generation(&self) -> u64 {
        self.moves.load(Ordering::Relaxed)
    }

    /// Refreshes the four lists every page is made of, each only if its
    /// answer is a period old; says whether all of them answered.
    /// Explanations are worked out from these lists, so they are read again
    /// only when a page that shows them is, after the lists moved.
    pub async fn poll(&self) -> bool {
        let (nodes, models, replicas, orphans) =
            tokio::join!(self.nodes(), self.models(), self.replicas(), self.orphans());
        nodes.is_ok() && models.is_ok() && replicas.is_ok() && orphans.is_ok()
    }

    /// Resolves at the next change made through the console.
    pub async fn next_change(&self) {
        self.changes.notified().await;
    }

    /// How long an answer is shared.
    pub fn period(&self) -> Duration {
        self.period
    }

    /// The nodes as last listed, however long ago; asks nothing.
    pub fn known_nodes(&self) -> Option<Arc<Vec<NodeView>>> {
        self.nodes.last_known().and_then(|(answer, _)| answer.ok())
    }

    /// The catalog as last listed, however long ago; asks nothing.
    pub fn known_models(&self) -> Option<Arc<Vec<ModelView>>> {
        self.models.last_known().and_then(|(answer, _)| answer.ok())
    }

    pub async fn nodes(&self) -> Answer<Vec<NodeView>> {
        let api = self.api.clone();
        self.nodes
            .get(
                self.period,
                || async move { api.list_nodes(&reader()).await },
            )
            .await
    }

    pub async fn models(&self) -> Answer<Vec<ModelView>> {
        let (api, not_serving) = (self.api.clone(), self.not_serving.clone());
        self.models
            .get(self.period, || async move {
                let catalog = api.list_models(&reader()).await?;
                not_serving.observe(&catalog, std::time::SystemTime::now());
                Ok(catalog)
            })
            .await
    }

    /// The cluster's figures and the nodes they count, from the four lists
    /// as every page reads them; counted once for each set of lists.
    pub async fn figures(
        &self,
    ) -> Result<(Arc<ClusterFigures>, Arc<Vec<NodeView>>), AdminApiError> {
        let (nodes, models, replicas, orphans) =
            tokio::join!(self.nodes(), self.models(), self.replicas(), self.orphans());
        let nodes = nodes?;
        let figures = self.figures.of(&nodes, &models?, &replicas?, &orphans?);
        Ok((figures, nodes))
    }

    /// When `model` was first seen not serving, if it is not serving now.
    pub fn not_serving_since(&self, model: &str) -> Option<std::time::SystemTime> {
        self.not_serving.since(model)
    }

    /// Each list as last read, however long ago, for a page or a scrape
    /// that waits for none; asks nothing.
    pub fn known(&self) -> KnownLists {
        fn of<T>(s: &Snapshot<T>) -> Known<T> {
            s.last_known()
                .map(|(answer, age)| KnownRead { answer, age })
        }
        KnownLists {
            nodes: of(&self.nodes),
            models: of(&self.models),
            replicas: of(&self.replicas),
            orphans: of(&self.orphans),
        }
    }

    /// Every replica; a page about one model filters this.
    pub async fn replicas(&self) -> Answer<Vec<ReplicaView>> {
        let api = self.api.clone();
        self.replicas
            .get(self.period, || async move {
                api.list_replicas(&reader(), None).await
            })
            .await
    }

    pub async fn orphans(&self) -> Answer<Vec<OrphanView>> {
        let api = self.api.clone();
        self.orphans
            .get(
                self.period,
                || async move { api.list_orphans(&reader()).await },
            )
            .await
    }

    /// What the admin API lists now, not a period ago: what a collection is
    /// checked against, so never the last good one in its place. The
    /// answer is kept for everyone else too.
    pub async fn orphans_now(&self) -> Answer<Vec<OrphanView>> {
        self.orphans.expire();
        let api = self.api.clone();
        self.orphans
            .get_now(|| async move { api.list_orphans(&reader()).await })
            .await
    }

    /// One model's explanation, shared like the lists when the catalog
    /// lists the model, asked for directly otherwise.
    /// How long ago the explanation of `model` that [`Self::explain`] gives
    /// was read from llmgw; `None` when none is kept (it was read just now,
    /// or straight from llmgw).
    pub fn explained_ago(&self, model: &str) -> Option<Duration> {
        self.explains.kept(model)?.last_known().map(|(_, age)| age)
    }

    pub async fn explain(&self, model: &str) -> Answer<ExplainView> {
        match self.models().await {
            Ok(models) if !models.iter().any(|m| m.name == model) => {
                return Err(AdminApiError::NotInCatalog {
                    model: model.to_string(),
                });
            }
            Ok(_) => {}
            // Without a catalog to judge by, llmgw says; a page waits for
            // it no longer than for a list.
            Err(_) => {
                let reader = reader();
                let asked = self.api.explain_placement(&reader, model);
                let Some(page) = PageReads::current() else {
                    return asked.await.map(Arc::new);
                };
                let began = Instant::now();
                return match tokio::time::timeout_at(page.until(), asked).await {
                    Ok(answer) => answer.map(Arc::new),
                    Err(_) => Err(slow(began)),
                };
            }
        }
        let snapshot = self.explains.entry(model);
        let (api, model) = (self.api.clone(), model.to_string());
        // Worked out by llmgw from what the lists say: while they have not
        // moved, neither has it, and the wall's every period asks nothing.
        snapshot
            .get_unmoved(
                self.period,
                self.generation(),
                EXPLANATION_MAX_AGE,
                || async move { api.explain_placement(&reader(), &model).await },
            )
            .await
    }

    /// The wall's headline of each of `models` (see `wall::headline`), in
    /// the order asked, a few at a time: hundreds of models not placed must
    /// not open hundreds of connections at once. Each is kept, not its
    /// explanation, while the lists do not move.
    /// `words`: the classes and fabrics a reason may name, to rank it by.
    pub async fn headlines(
        &self,
        models: Vec<String>,
        words: &crate::reasons::Vocabulary,
    ) -> Vec<(String, Answer<Option<String>>)> {
        use futures_util::{StreamExt, stream};
        let words = Arc::new(words.clone());
        stream::iter(models)
            .map(|model| {
                let words = words.clone();
                async move {
                    let snapshot = self.headlines.entry(&model);
                    let (api, asked) = (self.api.clone(), model.clone());
                    let headline = snapshot
                        .get_unmoved(
                            self.period,
                            self.generation(),
                            EXPLANATION_MAX_AGE,
                            || async move {
                                let explain = api.explain_placement(&reader(), &asked).await?;
                                Ok(crate::wall::headline(&explain, &words))
                            },
                        )
                        .await;
                    (model, headline)
                }
            })
            .buffered(EXPLAIN_CONCURRENCY)
            .collect()
            .await
    }

    /// The rejections by the node they name of the models worth explaining
    /// (see `rejection_gathering`): the index as it stands, after starting
    /// a round of explanations if one is due and waiting briefly for it.
    pub async fn rejections(self: &Arc<Self>) -> Answer<RejectionIndex> {
        let models = self.models().await?;
        let mut ended = self.rejections.ended();
        let started =
            self.rejections
                .start(&models, self.generation(), Instant::now(), self.period);
        if let Some(plan) = started {
            let small = plan.ask.len() <= EXPLAIN_CONCURRENCY;
            let lists = self.clone();
            tokio::spawn(async move { lists.gather(plan, models).await });
            if small {
                let _ = tokio::time::timeout(ROUND_WAIT, ended.changed()).await;
            }
        }
        Ok(self.rejections.current())
    }

    /// One round: the explanations of `plan.ask`, a few at a time, each
    /// indexed and dropped as it comes, the index published as it grows.
    async fn gather(&self, plan: Plan, catalog: Arc<Vec<ModelView>>) {
        use futures_util::{StreamExt, stream};
        let round = self.rejections.round();
        let of = plan.ask.len();
        if self.rejections.stands(&plan) {
            round.end(Vec::new(), self.generation(), Instant::now(), &plan.keep);
            return;
        }
        let mut builder = self.rejections.kept(&plan);
        if of > 0 {
            let gathering = Some(Gathering { read: 0, of });
            self.rejections
                .publish(builder.snapshot(&catalog, gathering));
        }
        let api = &self.api;
        let mut answers = stream::iter(plan.ask)
            .map(|model| async move {
                let explain = api.explain_placement(&reader(), &model.name).await;
                (model, explain)
            })
            .buffered(EXPLAIN_CONCURRENCY);
        let mut read = Vec::new();
        let mut published = Instant::now();
        let mut count = 0;
        while let Some((model, explain)) = answers.next().await {
            let ok = explain.is_ok();
            builder.add(&model.name, explain);
            if ok {
                read.push(model);
            }
            count += 1;
            if count < of && published.elapsed() >= ROUND_PUBLISH_EVERY {
                let gathering = Some(Gathering { read: count, of });
                self.rejections
                    .publish(builder.snapshot(&catalog, gathering));
                published = Instant::now();
            }
        }
        self.rejections.publish(builder.snapshot(&catalog, None));
        if of > 0 {
            // Open node pages read again for what the round found.
            self.moves.fetch_add(1, Ordering::Relaxed);
        }
        round.end(read, self.generation(), Instant::now(), &plan.keep);
    }

    /// After a change through the console: every list may have moved (a
    /// drain moves replicas, a collection frees disk), so all are asked
    /// again on their next read, and the change feed is woken to tell every
    /// open page at once.
    pub fn changed(&self) {
        self.nodes.expire();
        self.models.expire();
        self.replicas.expire();
        self.orphans.expire();
        self.rejections.force();
        self.explains.expire();
        self.headlines.expire();
        self.changes.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[tokio::test]
    async fn concurrent_readers_share_one_fetch_per_period() {
        let snapshot: Arc<Snapshot<usize>> = Arc::default();
        let calls = Arc::new(AtomicUsize::new(0));
        let period = Duration::from_secs(60);
        let mut readers = Vec::new();
        for _ in 0..50 {
            let (snapshot, calls) = (snapshot.clone(), calls.clone());
            readers.push(tokio::spawn(async move {
                snapshot
                    .get(period, || async move {
                        tokio::time::sleep(Duration::from_millis(20)).await;
                        Ok(calls.fetch_add(1, Ordering::SeqCst))
                    })
                    .await
            }));
        }
        for r in readers {
            assert_eq!(*r.await.expect("joined").expect("an answer"), 0);
        }
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        snapshot.expire();
        let again = snapshot
            .get(period, move || async move {
                Ok(calls.fetch_add(1, Ordering::SeqCst))
            })
            .await;
        assert_eq!(*again.expect("an answer"), 1, "asked again after a change");
    }

    #[tokio::test]
    async fn only_an_answer_that_differs_in_substance_is_a_move() {
        let moves = Arc::new(AtomicU64::new(0));
        let nodes: Snapshot<Vec<NodeView>> = Snapshot::counting(&moves);
        let node = |id: &str| NodeView {
            id: id.into(),
            ..NodeView::default()
        };
        let answer = |list: Vec<NodeView>| move || async move { Ok(list) };
        let _ = nodes.get(Duration::ZERO, answer(vec![node("a")])).await;
        assert_eq!(
            moves.load(Ordering::Relaxed),
            0,
            "a first answer is no move"
        );
        let _ = nodes.get(Duration::ZERO, answer(vec![node("a")])).await;
        assert_eq!(moves.load(Ordering::Relaxed), 0, "the same again");
        let _ = nodes
            .get(Duration::ZERO, answer(vec![node("a"), node("b")]))
            .await;
        assert_eq!(moves.load(Ordering::Relaxed), 1);
        // A failure in between is no move; the feed says it by its own flag.
        let down = AdminApiError::Status {
            code: 503,
            status: "503 Service Unavailable".into(),
            message: "down".into(),
        };
        let _ = nodes.get(Duration::ZERO, || async move { Err(down) }).await;
        let _ = nodes
            .get(Duration::ZERO, answer(vec![node("a"), node("b")]))
            .await;
        assert_eq!(moves.load(Ordering::Relaxed), 1);
        // Expired by a change, the answer is still what the next is told from.
        nodes.expire();
        let _ = nodes
            .get(Duration::from_secs(60), answer(vec![node("a"), node("b")]))
            .await;
        assert_eq!(moves.load(Ordering::Relaxed), 1);
    }

    #[tokio::test]
    async fn a_failure_is_shared_too_and_expires_with_the_period() {
        let snapshot: Snapshot<u8> = Snapshot::default();
        let failure = || AdminApiError::Status {
            code: 500,
            status: "500 Internal Server Error".into(),
            message: "down".into(),
        };
        assert!(
            snapshot
                .get(
                    Duration::from_secs(60),
                    move || async move { Err(failure()) }
                )
                .await
                .is_err()
        );
        assert!(
            snapshot
                .get(Duration::from_secs(60), || async { Ok(1) })
                .await
                .is_err(),
            "within the period, the same answer"
        );
        assert_eq!(
            *snapshot
                .get(Duration::ZERO, || async { Ok(1) })
                .await
                .expect("fresh"),
            1
        );
    }

    #[tokio::test]
    async fn a_page_gets_the_last_good_answer_marked_stale_and_anyone_else_the_failure() {
        let snapshot: Snapshot<u8> = Snapshot::default();
        let down = || AdminApiError::Status {
            code: 503,
            status: "503 Service Unavailable".into(),
            message: "down".into(),
        };
        let page = PageReads::default();
        let _ = snapshot
            .read(Duration::ZERO, Some(page.clone()), || async { Ok(7) })
            .await;
        assert_eq!(page.stale(), None, "a good answer is not stale");
        let shown = snapshot
            .read(Duration::ZERO, Some(page.clone()), move || async move {
                Err(down())
            })
            .await;
        assert_eq!(*shown.expect("the last good answer"), 7);
        let stale = page.stale().expect("noted stale");
        assert_eq!(stale.data_age_secs, 0);
        assert_eq!(stale.failing_for_secs, Some(0));
        assert!(stale.why.to_string().contains("503"), "{}", stale.why);
        // Within the period the failure is shared, and stays a failure
        // for a reader that is not a page.
        assert!(
            snapshot
                .read(Duration::from_secs(60), None, || async { Ok(8) })
                .await
                .is_err()
        );
    }

    #[tokio::test]
    async fn a_page_that_stops_waiting_does_not_cancel_the_read() {
        let snapshot: Snapshot<u8> = Snapshot::default();
        let _ = snapshot
            .read(Duration::ZERO, None, || async { Ok(1) })
            .await;
        let calls = Arc::new(AtomicUsize::new(0));
        let slow = |calls: Arc<AtomicUsize>| {
            move || async move {
                calls.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(PAGE_WAIT + Duration::from_millis(300)).await;
                Ok(2)
            }
        };
        let page = PageReads::default();
        let shown = snapshot
            .read(Duration::ZERO, Some(page.clone()), slow(calls.clone()))
            .await;
        assert_eq!(*shown.expect("the last good answer"), 1);
        assert!(
            page.stale()
                .expect("noted stale")
                .why
                .to_string()
                .contains("has not answered in 1 s")
        );
        // A second page joins the same read rather than starting one.
        let again = snapshot
            .read(
                Duration::ZERO,
                Some(PageReads::default()),
                slow(calls.clone()),
            )
            .await;
        assert_eq!(*again.expect("an answer"), 2, "the read landed meanwhile");
        assert_eq!(calls.load(Ordering::SeqCst), 1, "one read for both");
    }

    #[tokio::test]
    async fn a_page_waits_once_in_all_for_reads_made_one_after_another() {
        let (first, second): (Snapshot<u8>, Snapshot<u8>) = Default::default();
        for s in [&first, &second] {
            let _ = s.read(Duration::ZERO, None, || async { Ok(1) }).await;
        }
        let hangs = || async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            Ok(2)
        };
        let page = PageReads::default();
        let began = Instant::now();
        for s in [&first, &second] {
            let shown = s.read(Duration::ZERO, Some(page.clone()), hangs).await;
            assert_eq!(*shown.expect("the last good answer"), 1);
        }
        // Two waits of PAGE_WAIT each would be twice as long.
        assert!(
            began.elapsed() < PAGE_WAIT + PAGE_WAIT / 2,
            "{:?}",
            began.elapsed()
        );
    }
}
