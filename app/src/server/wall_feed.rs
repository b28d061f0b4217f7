//! The wall screen's data: worked out once per refresh period from the
//! shared lists, whatever the number of walls, with the trends of the last
//! seven days from the journal's store (or, while it cannot be read, of
//! the hours this console has run).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::history::History;
use super::journal::Journal;
use super::snapshots::{Snapshot, Snapshots};
use crate::admin_api::AdminApiError;
use crate::admin_api::types::{ModelView, NodeView};
use crate::format::ModelStatus;
use crate::wall::{WallView, wall_view};
use llmgw_journal::EventFilter;
use llmgw_journal::Sample;
use llmgw_journal::record::{EventKind, JournalEvent};
use llmgw_journal::trends::{self, thinned};

/// How long the wall's view waits for the journal's database.
const STORE_WAIT: Duration = Duration::from_millis(500);

#[derive(Default)]
pub struct WallFeed {
    view: Snapshot<WallView>,
    /// The last view that could be made: what a wall of several clusters
    /// keeps showing, marked stale, while one of them fails.
    last_good: Mutex<Option<Arc<WallView>>>,
    /// This console's own samples, for as long as the store has none.
    history: History,
    /// The store's samples of the last [`trends::REACH`], oldest first:
    /// read whole once, then what was added since, once a period.
    stored: Mutex<Vec<Sample>>,
    journal: Arc<Journal>,
    cluster: String,
    build: String,
}

impl std::fmt::Debug for WallFeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WallFeed")
            .field("build", &self.build)
            .finish()
    }
}

impl WallFeed {
    /// `build` names this console's build, so that walls from another one
    /// reload themselves.
    /// `cluster` is the id the journal keeps its samples under.
    pub fn new(build: String, journal: Arc<Journal>, cluster: String) -> Self {
        Self {
            build,
            journal,
            cluster,
            ..Self::default()
        }
    }

    /// The last view however old and its age, or why it could not be
    /// made; asks nothing.
    pub fn last_known(&self) -> Option<(Result<Arc<WallView>, AdminApiError>, Duration)> {
        self.view.last_known()
    }

    /// The last view that could be made, however old; asks nothing.
    pub fn last_good(&self) -> Option<Arc<WallView>> {
        self.last_good
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// What a page is shown: the view, worked out again if it is a period
    /// old.
    pub async fn current(
        self: &Arc<Self>,
        lists: &Arc<Snapshots>,
    ) -> Result<Arc<WallView>, AdminApiError> {
        let view = self.made(lists).await;
        if let Ok(good) = &view {
            *self
                .last_good
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(good.clone());
        }
        view
    }

    async fn made(
        self: &Arc<Self>,
        lists: &Arc<Snapshots>,
    ) -> Result<Arc<WallView>, AdminApiError> {
        let (feed, lists) = (self.clone(), lists.clone());
        let period = lists.period();
        self.view
            .get(period, || async move {
                let feed = &feed;
                let (nodes, models, replicas, orphans) = tokio::join!(
                    lists.nodes(),
                    lists.models(),
                    lists.replicas(),
                    lists.orphans()
                );
                let (nodes, models, replicas) = (nodes?, models?, replicas?);
                // Orphans only add a panel; without them the wall stands.
                let orphans = orphans.ok();
                let orphans = orphans.as_deref().map_or(&[][..], Vec::as_slice);
                let stuck: Vec<String> = models
                    .iter()
                    .filter(|m| ModelStatus::of(m) == ModelStatus::NotPlaced)
                    .map(|m| m.name.clone())
                    .collect();
                let headlines: HashMap<String, _> = lists
                    .headlines(stuck, &crate::reasons::Vocabulary::of(&nodes))
                    .await
                    .into_iter()
                    .collect();
                let why = |model: &str| {
                    headlines
                        .get(model)
                        .and_then(|h| h.as_deref().ok().cloned().flatten())
                };
                let mut view = wall_view(&nodes, &models, &replicas, orphans, &why);
                view.taken_at = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs() as i64);
                view.build = feed.build.clone();
                feed.date(&mut view, &nodes, &models);
                view.recent = feed.recent(view.taken_at).await;
                view.trends = feed.trends(view.sample()).await;
                Ok(view)
            })
            .await
    }

    /// Since when each model not serving has had its status, and each
    /// node in trouble its unhealthy GPUs.
    fn date(&self, view: &mut WallView, nodes: &[NodeView], models: &[ModelView]) {
        if !view.not_serving.is_empty() {
            let by_name: HashMap<&str, &ModelView> =
                models.iter().map(|m| (m.name.as_str(), m)).collect();
            for entry in &mut view.not_serving {
                // One starting for long may be ready, with a replica slow
                // to start: its line gives the replica's age, not a date.
                if let Some(m) = by_name.get(entry.model.as_str())
                    && entry.since_is_its_status()
                {
                    let status = ModelStatus::of(m).label();
                    entry.since = self.journal.model_since(&self.cluster, &m.name, status);
                }
            }
        }
        if !view.troubled.is_empty() {
            let by_id: HashMap<&str, &NodeView> = nodes
                .iter()
                .filter(|n| !n.unhealthy.is_empty())
                .map(|n| (n.id.as_str(), n))
                .collect();
            for entry in &mut view.troubled {
                if let Some(n) = by_id.get(entry.node.as_str()) {
                    entry.unhealthy_since =
                        self.journal
                            .unhealthy_since(&self.cluster, &n.id, &n.unhealthy);
                }
            }
        }
    }

    /// The store, while it answers: every wall waits for this view, and
    /// the live figures must not wait for a database that is down.
    fn answering_store(&self) -> Option<&llmgw_journal::JournalStore> {
        self.journal
            .store()
            .filter(|_| self.journal.error().is_none())
    }

    /// The journal's newest changes of the cluster in the hour before
    /// `now` (what llmgw's lists showed change: a refused attempt or a
    /// restart of the console is not news on a wall); none while it
    /// cannot be read (every page says why).
    async fn recent(&self, now: i64) -> Vec<JournalEvent> {
        let Some(store) = self.answering_store() else {
            return Vec::new();
        };
        let filter = EventFilter {
            cluster: Some(self.cluster.clone()),
            kinds: EventKind::ALL
                .into_iter()
                // Findings after a short gap are changes within it; the
                // store leaves out those of a start (no `from_state`).
                .filter(|k| !matches!(k, EventKind::RecordingStarted | EventKind::Attempt))
                .collect(),
            since: Some(now - 3600),
            ..EventFilter::default()
        };
        // Once a period, whatever the number of walls: not through the
        // pages' shared answers, whose keys this would push out.
        let read = store.read(&filter, crate::wall::RECENT_ROWS as u32);
        match tokio::time::timeout(STORE_WAIT, read).await {
            Ok(Ok(events)) => events,
            _ => Vec::new(),
        }
    }

    /// The trends up to `now`: the store's, thinned to what a sparkline
    /// draws, then this console's own after them; only its own while the
    /// store has none to give.
    async fn trends(&self, now: Sample) -> Vec<Sample> {
        self.history.record(now);
        let stored = || self.stored.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(store) = self.answering_store() {
            let after = stored().last().map_or(now.at - trends::REACH, |s| s.at);
            let read = store.samples_after(&self.cluster, after);
            if let Ok(Ok(added)) = tokio::time::timeout(STORE_WAIT, read).await {
                let mut kept = stored();
                kept.extend(added);
                let from = now.at - trends::REACH;
                let gone = kept.partition_point(|s| s.at < from);
                kept.drain(..gone);
            }
        }
        let kept = stored();
        if kept.is_empty() {
            return self.history.samples();
        }
        // Then this console's own samples since the store's last: the
        // figure now, and what a store that stopped answering missed.
        let mut line = thinned(&kept);
        let last = line.last().map_or(i64::MIN, |s| s.at);
        line.extend(self.history.samples().into_iter().filter(|s| s.at > last));
        line
    }
}
