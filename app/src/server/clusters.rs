//! The clusters one console shows, each with everything of its own: its
//! admin API client, its snapshots and their poll, its wall's figures and
//! its change feed. Nothing here is shared between clusters, so a cluster
//! whose admin API hangs holds up its own pages and no one else's.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::change_feed::ChangeFeed;
use super::snapshots::Snapshots;
use super::wall_feed::WallFeed;
use crate::cluster_tag::ClusterTag;
use crate::server::admin_client::AdminApiClient;
use crate::wall::WallView;

#[derive(Debug)]
pub struct Cluster {
    pub tag: ClusterTag,
    pub admin_api: Arc<AdminApiClient>,
    /// The lists every page of this cluster reads, polled once for every
    /// viewer of this cluster.
    pub snapshots: Arc<Snapshots>,
    /// This cluster's wall figures and trends.
    pub wall: Arc<WallFeed>,
    /// Tells this cluster's open pages when its lists move.
    pub changes: Arc<ChangeFeed>,
    /// Changes to this cluster are refused, whatever the console's setting.
    pub read_only: bool,
    /// A read behind a page that does not wait for it is under way.
    reading_behind: AtomicBool,
    /// Told when such a read ends.
    read_ended: tokio::sync::Notify,
    /// When a page of several clusters first asked for this one.
    first_asked: std::sync::OnceLock<std::time::Instant>,
}

impl Cluster {
    pub fn new(
        tag: ClusterTag,
        admin_api: AdminApiClient,
        period: Duration,
        read_only: bool,
        build: String,
        journal: Arc<super::journal::Journal>,
    ) -> Self {
        let admin_api = Arc::new(admin_api);
        Self {
            wall: Arc::new(WallFeed::new(build, journal, tag.id.clone())),
            tag,
            snapshots: Arc::new(Snapshots::new(admin_api.clone(), period)),
            admin_api,
            changes: Arc::new(ChangeFeed::default()),
            read_only,
            reading_behind: AtomicBool::new(false),
            read_ended: tokio::sync::Notify::new(),
            first_asked: std::sync::OnceLock::new(),
        }
    }

    /// What is known of the cluster's wall, for a page that shows many
    /// clusters: the last view that could be made, and why the latest
    /// attempt failed if it did. Nothing waits for a read but in the
    /// first [`FIRST_READ_WAIT`] after a page first asked for a cluster
    /// never read: its first read, behind the page like every other, is
    /// given until then.
    pub async fn wall_as_known(self: &Arc<Self>) -> KnownWall {
        let first = *self.first_asked.get_or_init(std::time::Instant::now);
        let ended = self.read_ended.notified();
        self.read_behind();
        let left = (first + FIRST_READ_WAIT).saturating_duration_since(std::time::Instant::now());
        if self.wall.last_known().is_none() && !left.is_zero() {
            let _ = tokio::time::timeout(left, ended).await;
        }
        let error = self
            .wall
            .last_known()
            .and_then(|(answer, _)| answer.err())
            .map(|e| e.to_string());
        KnownWall {
            view: self.wall.last_good(),
            error,
        }
    }

    /// Reads the cluster's lists again in a task of its own when they are
    /// a period old, for a page that shows what was last read and does not
    /// wait: one such read at a time, however many pages ask, and only as
    /// often as the lists' period lets it ask the admin API.
    pub fn read_behind(self: &Arc<Self>) {
        let stale = self
            .wall
            .last_known()
            .is_none_or(|(_, age)| age >= self.snapshots.period());
        if !stale || self.reading_behind.swap(true, Ordering::SeqCst) {
            return;
        }
        let cluster = self.clone();
        tokio::spawn(async move {
            // Cleared however the read ends.
            let done = ReadBehind(cluster);
            let _ = done.0.wall.current(&done.0.snapshots).await;
        });
    }
}

/// How long the pages of several clusters wait, in all, for one they have
/// never read: the first second after the first of them asked.
pub const FIRST_READ_WAIT: Duration = Duration::from_secs(1);

/// What a page of several clusters knows of one.
#[derive(Debug, Default)]
pub struct KnownWall {
    /// The last view that could be made, however old.
    pub view: Option<Arc<WallView>>,
    /// Why the latest attempt failed, when it did.
    pub error: Option<String>,
}

struct ReadBehind(Arc<Cluster>);

impl Drop for ReadBehind {
    fn drop(&mut self) {
        self.0.reading_behind.store(false, Ordering::SeqCst);
        self.0.read_ended.notify_waiters();
    }
}

/// Every cluster, in the settings' order; the first is where addresses
/// that name no cluster (links shared before there were several) go.
#[derive(Debug)]
pub struct Clusters(Vec<Arc<Cluster>>);

impl Clusters {
    /// `None` when `list` is empty or names a cluster twice.
    pub fn new(list: Vec<Cluster>) -> Option<Self> {
        let mut ids: Vec<&str> = list.iter().map(|c| c.tag.id.as_str()).collect();
        ids.sort_unstable();
        let before = ids.len();
        ids.dedup();
        (before > 0 && ids.len() == before).then(|| Self(list.into_iter().map(Arc::new).collect()))
    }

    pub fn get(&self, id: &str) -> Option<&Arc<Cluster>> {
        self.0.iter().find(|c| c.tag.id == id)
    }

    pub fn first(&self) -> &Arc<Cluster> {
        // `new` refuses an empty list.
        &self.0[0]
    }

    pub fn iter(&self) -> impl Iterator<Item = &Arc<Cluster>> {
        self.0.iter()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// More than one: `/` is then the overview of every cluster.
    pub fn are_several(&self) -> bool {
        self.0.len() > 1
    }

    pub fn tags(&self) -> Vec<ClusterTag> {
        self.0.iter().map(|c| c.tag.clone()).collect()
    }
}

/// The cluster a request is about, as the address named it; put in the
/// request by the router's first step. A request without one is about no
/// one cluster.
#[derive(Clone, Debug)]
pub struct InCluster(pub Arc<Cluster>);

/// The id of an address that names a cluster this console does not show,
/// for the not-found page to say.
#[derive(Clone, Debug)]
pub struct UnknownCluster(pub String);
