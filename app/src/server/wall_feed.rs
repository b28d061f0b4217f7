//! The wall screen's data: worked out once per refresh period from the
//! shared lists, whatever the number of walls, and sampled into the trends.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::history::History;
use super::snapshots::{Snapshot, Snapshots};
use crate::admin_api::AdminApiError;
use crate::format::ModelStatus;
use crate::wall::{WallView, wall_view};

#[derive(Default)]
pub struct WallFeed {
    view: Snapshot<WallView>,
    /// The last view that could be made: what a wall of several clusters
    /// keeps showing, marked stale, while one of them fails.
    last_good: Mutex<Option<Arc<WallView>>>,
    history: History,
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
    pub fn new(build: String) -> Self {
        Self {
            build,
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
    pub async fn current(&self, lists: &Snapshots) -> Result<Arc<WallView>, AdminApiError> {
        let view = self.made(lists).await;
        if let Ok(good) = &view {
            *self
                .last_good
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(good.clone());
        }
        view
    }

    async fn made(&self, lists: &Snapshots) -> Result<Arc<WallView>, AdminApiError> {
        self.view
            .get(lists.period(), async || {
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
                let headlines: HashMap<String, _> =
                    lists.headlines(stuck).await.into_iter().collect();
                let why = |model: &str| {
                    headlines
                        .get(model)
                        .and_then(|h| h.as_deref().ok().cloned().flatten())
                };
                let mut view = wall_view(&nodes, &models, &replicas, orphans, &why);
                view.taken_at = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs() as i64);
                view.build = self.build.clone();
                self.history.record(view.sample());
                view.trends = self.history.samples();
                Ok(view)
            })
            .await
    }
}
