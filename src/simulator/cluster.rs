//! The simulated cluster's state and every change the admin API can make to
//! it. Counts that the real control plane derives (free GPUs, a node's
//! replicas, a model's ready and total) are derived here too, from the
//! replicas, so a drain or a collection keeps every view consistent.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::{Duration, Instant};

use app::admin_api::types::{
    CollectResult, ExplainView, ModelView, NodeState, NodeStateChange, NodeView, OrphanView,
    Rejection, ReplicaView, TargetState,
};

/// A failure the real server would answer with a 4xx status.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    BadRequest(String),
}

/// One change made through the API, with who made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    pub actor: String,
    pub action: String,
}

/// A replica and when it started, so its age grows as the demo runs.
#[derive(Debug, Clone)]
pub struct SimReplica {
    pub view: ReplicaView,
    pub started: Instant,
    /// When it was last used; `None` while nothing has reported use.
    pub last_used: Option<Instant>,
}

/// What one shard of a model needs, for a cluster that works out its
/// explanations from its state rather than keeping written ones: a
/// placement check of llmgw's kind over the nodes of the spec's class,
/// naming every check each node fails (state, anti-affinity, free healthy
/// GPUs, disk), one rejection each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    pub profile: String,
    pub pool: String,
    pub class: String,
    pub gpus: i64,
    /// Room for the weights; 0 asks for none.
    pub disk_gb: i64,
}

#[derive(Debug, Clone)]
struct Drain {
    started: Instant,
    moves_done: u32,
}

#[derive(Debug, Clone)]
pub struct Cluster {
    /// `gpu_free` and `replicas` are recomputed on every read.
    pub nodes: Vec<NodeView>,
    /// `ready` and `total` are recomputed on every read.
    pub models: Vec<ModelView>,
    pub replicas: Vec<SimReplica>,
    pub explains: BTreeMap<String, ExplainView>,
    pub orphans: Vec<OrphanView>,
    /// Nodes whose agent refuses to delete what it is asked to.
    pub refusing_nodes: BTreeSet<String>,
    pub audit: Vec<AuditEntry>,
    /// Models whose explanation is worked out from the state at every
    /// read (see [`Spec`]); the others keep `explains`.
    pub placement: BTreeMap<String, Spec>,
    pub drain_step: Duration,
    drains: BTreeMap<String, Drain>,
    next_replica: u64,
}

impl Cluster {
    pub fn new(
        nodes: Vec<NodeView>,
        models: Vec<ModelView>,
        replicas: Vec<SimReplica>,
        explains: BTreeMap<String, ExplainView>,
        orphans: Vec<OrphanView>,
        refusing_nodes: BTreeSet<String>,
    ) -> Self {
        let next_replica = replicas.len() as u64 + 1;
        Self {
            nodes,
            models,
            replicas,
            explains,
            orphans,
            refusing_nodes,
            audit: Vec::new(),
            placement: BTreeMap::new(),
            drain_step: Duration::from_secs(1),
            drains: BTreeMap::new(),
            next_replica,
        }
    }

    pub fn list_nodes(&mut self, now: Instant) -> Vec<NodeView> {
        self.advance(now);
        // One pass over the replicas for every node, not one per node: the
        // simulator must answer at thousands of nodes as fast as llmgw would.
        let mut usage: HashMap<&str, (i64, BTreeSet<i64>)> = HashMap::new();
        for replica in &self.replicas {
            let mut counted = BTreeSet::new();
            for shard in &replica.view.shards {
                let (replicas, used) = usage.entry(shard.node.as_str()).or_default();
                if counted.insert(shard.node.as_str()) {
                    *replicas += 1;
                }
                used.extend(shard.gpus.iter().copied());
            }
        }
        let none = (0, BTreeSet::new());
        self.nodes
            .iter()
            .map(|n| {
                let (replicas, used) = usage.get(n.id.as_str()).unwrap_or(&none);
                let mut n = n.clone();
                n.gpu_free = free_of(&n, used).len() as i64;
                n.replicas = *replicas;
                n
            })
            .collect()
    }

    pub fn list_models(&mut self, now: Instant) -> Vec<ModelView> {
        self.advance(now);
        let mut counts: HashMap<&str, (i64, i64)> = HashMap::new();
        for replica in &self.replicas {
            let (total, ready) = counts.entry(replica.view.model.as_str()).or_default();
            *total += 1;
            *ready += i64::from(replica.view.state == "ready");
        }
        self.models
            .iter()
            .map(|m| {
                let (total, ready) = counts.get(m.name.as_str()).copied().unwrap_or_default();
                let mut m = m.clone();
                m.total = total;
                m.ready = ready;
                m
            })
            .collect()
    }

    pub fn list_replicas(&mut self, now: Instant, model: Option<&str>) -> Vec<ReplicaView> {
        self.advance(now);
        self.replicas
            .iter()
            .filter(|r| model.is_none_or(|m| r.view.model == m))
            .map(|r| {
                let mut v = r.view.clone();
                v.age_sec = now.saturating_duration_since(r.started).as_secs() as i64;
                v.idle_sec = r
                    .last_used
                    .map_or(-1, |t| now.saturating_duration_since(t).as_secs() as i64);
                v
            })
            .collect()
    }

    pub fn explain(&mut self, now: Instant, model: &str) -> Result<ExplainView, SimError> {
        self.advance(now);
        if model.is_empty() {
            return Err(SimError::BadRequest("model is required".into()));
        }
        if !self.models.iter().any(|m| m.name == model) {
            return Err(SimError::NotFound(format!(
                "model {model:?} is not in the catalog"
            )));
        }
        if let Some(spec) = self.placement.get(model) {
            return Ok(self.place(model, spec));
        }
        Ok(self.explains.get(model).cloned().unwrap_or(ExplainView {
            model: model.to_string(),
            placed: false,
            rejections: Vec::new(),
        }))
    }

    pub fn set_node_state(
        &mut self,
        now: Instant,
        actor: &str,
        id: &str,
        state: TargetState,
    ) -> Result<NodeStateChange, SimError> {
        self.advance(now);
        let node = self
            .nodes
            .iter_mut()
            .find(|n| n.id == id)
            .ok_or_else(|| SimError::NotFound(format!("node {id:?} not found")))?;
        node.state = NodeState::from(state);
        if state == TargetState::Draining {
            self.drains.entry(id.to_string()).or_insert(Drain {
                started: now,
                moves_done: 0,
            });
        } else {
            self.drains.remove(id);
        }
        self.record(actor, format!("set node {id} to {}", state.as_str()));
        Ok(NodeStateChange {
            id: id.to_string(),
            state: NodeState::from(state),
        })
    }

    pub fn list_orphans(&mut self, now: Instant) -> Vec<OrphanView> {
        self.advance(now);
        self.orphans.clone()
    }

    /// Asks one node, or every node when `node` is empty, to delete its
    /// orphans. A refusing node reports its error beside the others' results
    /// and keeps its files.
    pub fn collect(
        &mut self,
        now: Instant,
        actor: &str,
        node: &str,
    ) -> Result<Vec<CollectResult>, SimError> {
        self.advance(now);
        if !node.is_empty() && !self.nodes.iter().any(|n| n.id == node) {
            return Err(SimError::NotFound(format!("node {node:?} not found")));
        }
        let mut results = Vec::new();
        let mut kept = Vec::new();
        for orphan in std::mem::take(&mut self.orphans) {
            if !node.is_empty() && orphan.node != node {
                kept.push(orphan);
                continue;
            }
            if self.refusing_nodes.contains(&orphan.node) {
                results.push(CollectResult {
                    node: orphan.node.clone(),
                    files: 0,
                    bytes: 0,
                    error: format!(
                        "refused {} path(s): the agent cannot verify they are in its cache",
                        orphan.paths.len()
                    ),
                });
                kept.push(orphan);
            } else {
                // The room comes back to the node, as a real deletion's does.
                if let Some(n) = self.nodes.iter_mut().find(|n| n.id == orphan.node)
                    && n.disk_total_gb > 0
                {
                    n.disk_free_gb =
                        (n.disk_free_gb + orphan.bytes.max(0) / (1 << 30)).min(n.disk_total_gb);
                }
                results.push(CollectResult {
                    node: orphan.node.clone(),
                    files: orphan.paths.len() as i64,
                    bytes: orphan.bytes,
                    error: String::new(),
                });
            }
        }
        self.orphans = kept;
        let scope = if node.is_empty() { "every node" } else { node };
        self.record(actor, format!("collect orphaned weights on {scope}"));
        Ok(results)
    }

    fn record(&mut self, actor: &str, action: String) {
        tracing::info!(target: "simulator", %actor, %action, "admin API change");
        self.audit.push(AuditEntry {
            actor: actor.to_string(),
            action,
        });
    }

    /// Every node of `spec`'s pool that would turn a new shard down, with
    /// each check it fails; the pool as a whole when none would take it.
    fn place(&self, model: &str, spec: &Spec) -> ExplainView {
        let mut used: HashMap<&str, BTreeSet<i64>> = HashMap::new();
        let mut hosts: BTreeSet<&str> = BTreeSet::new();
        for r in &self.replicas {
            for shard in &r.view.shards {
                used.entry(shard.node.as_str())
                    .or_default()
                    .extend(shard.gpus.iter().copied());
                if r.view.model == model {
                    hosts.insert(shard.node.as_str());
                }
            }
        }
        let none = BTreeSet::new();
        let mut rejections = Vec::new();
        let mut takers = 0;
        for n in self
            .nodes
            .iter()
            .filter(|n| n.classes.contains(&spec.class))
        {
            let free = free_of(n, used.get(n.id.as_str()).unwrap_or(&none)).len() as i64;
            let mut reasons = Vec::new();
            match &n.state {
                NodeState::Ready => {}
                NodeState::Cordoned => reasons.push("node is cordoned".to_string()),
                NodeState::Draining => reasons.push("node is draining".to_string()),
                other => reasons.push(format!("node is {}", other.as_str())),
            }
            if hosts.contains(n.id.as_str()) {
                reasons.push("anti-affinity: already runs a replica of this model".to_string());
            }
            if free < spec.gpus {
                reasons.push(format!("needs {} free GPUs, {free} free", spec.gpus));
            }
            if n.disk_total_gb > 0 && spec.disk_gb > 0 && n.disk_free_gb < spec.disk_gb {
                reasons.push(format!(
                    "insufficient disk: needs {}G, {}G free",
                    spec.disk_gb, n.disk_free_gb
                ));
            }
            if reasons.is_empty() {
                takers += 1;
            }
            rejections.extend(reasons.into_iter().map(|reason| Rejection {
                profile: spec.profile.clone(),
                pool: spec.pool.clone(),
                node: n.id.clone(),
                reason,
            }));
        }
        if takers == 0 {
            rejections.push(Rejection {
                profile: spec.profile.clone(),
                pool: spec.pool.clone(),
                node: String::new(),
                reason: format!("no ready node in the pool has {} free GPUs", spec.gpus),
            });
        }
        ExplainView {
            model: model.to_string(),
            placed: !hosts.is_empty(),
            rejections,
        }
    }

    /// GPU indices on `node` that are healthy and not used by any shard.
    fn free_gpus(&self, node: &NodeView) -> Vec<i64> {
        let used: BTreeSet<i64> = self
            .replicas
            .iter()
            .flat_map(|r| r.view.shards.iter())
            .filter(|s| s.node == node.id)
            .flat_map(|s| s.gpus.iter().copied())
            .collect();
        free_of(node, &used)
    }

    /// Moves replicas off draining nodes, one per `drain_step`, each to a
    /// ready node with room; a replacement comes up before the original stops,
    /// so the move shows as a new replica on the new node.
    fn advance(&mut self, now: Instant) {
        let draining: Vec<String> = self.drains.keys().cloned().collect();
        for node_id in draining {
            while let Some(drain) = self.drains.get(&node_id) {
                let due = (now.saturating_duration_since(drain.started).as_millis()
                    / self.drain_step.as_millis().max(1)) as u32;
                if drain.moves_done >= due || !self.move_one_replica_off(&node_id, now) {
                    break;
                }
                if let Some(drain) = self.drains.get_mut(&node_id) {
                    drain.moves_done += 1;
                }
            }
        }
    }

    fn move_one_replica_off(&mut self, node_id: &str, now: Instant) -> bool {
        let Some(index) = self
            .replicas
            .iter()
            .position(|r| r.view.shards.iter().any(|s| s.node == node_id))
        else {
            return false;
        };
        let mut moved = self.replicas[index].view.clone();
        let classes = self
            .nodes
            .iter()
            .find(|n| n.id == node_id)
            .map(|n| n.classes.clone())
            .unwrap_or_default();
        for shard in moved.shards.iter_mut().filter(|s| s.node == node_id) {
            let want = shard.gpus.len().max(1);
            // Same GPU class first, as the scheduler would; any room after that.
            let mut candidates: Vec<&NodeView> = self
                .nodes
                .iter()
                .filter(|n| n.id != node_id && n.state == NodeState::Ready)
                .collect();
            candidates.sort_by_key(|n| n.classes != classes);
            let target = candidates.into_iter().find_map(|n| {
                let free = self.free_gpus(n);
                (free.len() >= want).then(|| (n.id.clone(), free[..want].to_vec()))
            });
            let Some((target, gpus)) = target else {
                return false;
            };
            shard.node = target;
            shard.gpus = gpus;
            shard.err.clear();
        }
        moved.id = format!("r-{:04}", self.next_replica);
        moved.state = "ready".into();
        moved.err.clear();
        for (i, shard) in moved.shards.iter_mut().enumerate() {
            shard.id = format!("{}-s{i}", moved.id);
        }
        self.next_replica += 1;
        self.replicas[index] = SimReplica {
            view: moved,
            started: now,
            last_used: None,
        };
        true
    }
}

/// The GPUs of `node` that are healthy and not in `used`.
fn free_of(node: &NodeView, used: &BTreeSet<i64>) -> Vec<i64> {
    let unhealthy: BTreeSet<i64> = node.unhealthy.iter().filter_map(|l| gpu_index(l)).collect();
    (0..node.gpu_total)
        .filter(|i| !unhealthy.contains(i) && !used.contains(i))
        .collect()
}

/// "GPU 5: ..." names GPU 5.
fn gpu_index(line: &str) -> Option<i64> {
    line.strip_prefix("GPU ")?
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulator::default_cluster;

    #[test]
    fn gpu_index_is_read_from_the_unhealthy_line() {
        assert_eq!(gpu_index("GPU 5: Xid 79"), Some(5));
        assert_eq!(gpu_index("something else"), None);
    }

    #[test]
    fn a_drain_moves_every_replica_off_the_node_one_step_at_a_time() {
        let mut c = default_cluster::build();
        c.drain_step = Duration::from_millis(10);
        let t0 = Instant::now();
        let node = "gpu-h100-01";
        let on_node = |c: &mut Cluster, t| {
            c.list_nodes(t)
                .into_iter()
                .find(|n| n.id == node)
                .map(|n| n.replicas)
                .unwrap_or(-1)
        };
        let before = on_node(&mut c, t0);
        assert!(
            before >= 2,
            "the demo node should hold replicas, has {before}"
        );
        let ready_before: i64 = c.list_models(t0).iter().map(|m| m.ready).sum();
        c.set_node_state(t0, "test", node, TargetState::Draining)
            .expect("known node");
        assert_eq!(on_node(&mut c, t0), before, "nothing moves at once");
        assert_eq!(on_node(&mut c, t0 + Duration::from_millis(10)), before - 1);
        assert_eq!(on_node(&mut c, t0 + Duration::from_secs(5)), 0);
        let ready_after: i64 = c
            .list_models(t0 + Duration::from_secs(5))
            .iter()
            .map(|m| m.ready)
            .sum();
        assert_eq!(
            ready_before, ready_after,
            "moved replicas come up elsewhere"
        );
        assert_eq!(c.audit.last().map(|a| a.actor.as_str()), Some("test"));
    }

    #[test]
    fn a_drained_replica_stays_in_its_gpu_class_when_there_is_room() {
        let mut c = default_cluster::build();
        c.drain_step = Duration::from_millis(1);
        let t0 = Instant::now();
        c.set_node_state(t0, "test", "gpu-l40s-03", TargetState::Draining)
            .expect("known node");
        let replicas = c.list_replicas(t0 + Duration::from_secs(1), Some("qwen2.5:7b"));
        let nodes: Vec<&str> = replicas.iter().map(|r| r.shards[0].node.as_str()).collect();
        assert!(
            nodes
                .iter()
                .all(|n| n.starts_with("gpu-l40s-") && *n != "gpu-l40s-03"),
            "{nodes:?}"
        );
    }

    #[test]
    fn collect_removes_orphans_except_where_a_node_refuses() {
        let mut c = default_cluster::build();
        let now = Instant::now();
        let refusing = c
            .refusing_nodes
            .iter()
            .next()
            .cloned()
            .expect("one refuses");
        let results = c.collect(now, "test", "").expect("collects");
        assert!(
            results
                .iter()
                .any(|r| r.node == refusing && !r.error.is_empty())
        );
        assert!(results.iter().any(|r| r.error.is_empty() && r.files > 0));
        let left = c.list_orphans(now);
        assert!(left.iter().all(|o| o.node == refusing), "{left:?}");
        assert_eq!(
            c.collect(now, "test", "nope"),
            Err(SimError::NotFound("node \"nope\" not found".into()))
        );
    }

    #[test]
    fn explain_knows_the_catalog() {
        let mut c = default_cluster::build();
        let now = Instant::now();
        assert!(matches!(
            c.explain(now, "no-such-model"),
            Err(SimError::NotFound(_))
        ));
        assert!(matches!(c.explain(now, ""), Err(SimError::BadRequest(_))));
        assert!(c.explain(now, "qwen2.5:7b").is_ok());
    }
}
