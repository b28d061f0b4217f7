//! Larger clusters for benchmarks and tests, generated from a seed so that the
//! same flags always give the same cluster.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use app::admin_api::types::{
    ExplainView, ModelView, NodeState, NodeView, OrphanView, Rejection, ReplicaView, Shard,
};

use super::cluster::{Cluster, SimReplica, Spec};

/// SplitMix64: a few lines, and its sequence for a seed never changes with a
/// dependency upgrade, which is what "repeatable" needs here.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

struct Pool {
    name: &'static str,
    class: &'static str,
    gpus: i64,
    memory_gb: i64,
    fabrics: &'static [&'static str],
}

const POOLS: &[Pool] = &[
    Pool {
        name: "h100",
        class: "h100-80g",
        gpus: 8,
        memory_gb: 2048,
        fabrics: &["nvlink", "infiniband"],
    },
    Pool {
        name: "a100",
        class: "a100-80g",
        gpus: 8,
        memory_gb: 1024,
        fabrics: &["nvlink"],
    },
    Pool {
        name: "l40s",
        class: "l40s-48g",
        gpus: 4,
        memory_gb: 512,
        fabrics: &["pcie"],
    },
];

const ORGS: &[&str] = &["meta-llama", "mistralai", "qwen", "google", "acme", "BAAI"];
const FAMILIES: &[&str] = &[
    "Llama-3.1",
    "Mixtral",
    "Qwen2.5",
    "gemma-2",
    "support-bot",
    "bge",
];

/// Nodes an explanation names at most: a pool's worth of candidates.
const NAMED_PER_EXPLANATION: usize = 200;

/// Why placement would turn `node` down for a shard of `want_gpus` GPUs, in
/// llmgw's words; `None` when it would not.
fn turned_down(node: &NodeView, want_gpus: i64, used: &BTreeSet<i64>) -> Option<String> {
    match node.state {
        NodeState::Cordoned => Some("node is cordoned".into()),
        NodeState::Draining => Some("node is draining".into()),
        _ => {
            let free = (0..node.gpu_total).filter(|g| !used.contains(g)).count() as i64;
            (free < want_gpus).then(|| format!("needs {want_gpus} free GPUs, {free} free"))
        }
    }
}

pub fn build(node_count: usize, model_count: usize, seed: u64) -> Cluster {
    build_with(node_count, model_count, seed, false)
}

/// The same cluster, but its explanations worked out from its state at
/// every read (see [`Spec`]): a change made through the admin API shows in
/// the next explanation, as it would on llmgw.
pub fn build_placed(node_count: usize, model_count: usize, seed: u64) -> Cluster {
    build_with(node_count, model_count, seed, true)
}

fn build_with(node_count: usize, model_count: usize, seed: u64, placed_live: bool) -> Cluster {
    let mut rng = Rng(seed);
    let mut specs = BTreeMap::new();
    let now = Instant::now();

    let mut nodes: Vec<(NodeView, &Pool)> = (0..node_count)
        .map(|i| {
            let pool = &POOLS[i % POOLS.len()];
            let state = match rng.below(100) {
                0..=3 => NodeState::Cordoned,
                4..=5 => NodeState::Draining,
                _ => NodeState::Ready,
            };
            let old_agent = rng.chance(5);
            let disk_total = if old_agent {
                0
            } else {
                1900 * (1 + rng.below(4) as i64)
            };
            let unhealthy = if rng.chance(4) {
                vec![format!(
                    "GPU {}: uncorrectable ECC errors",
                    rng.below(pool.gpus as u64)
                )]
            } else {
                Vec::new()
            };
            let view = NodeView {
                id: format!("gpu-{}-{:04}", pool.name, i + 1),
                state,
                gpu_free: 0,
                gpu_total: pool.gpus,
                memory_gb: if old_agent { 0 } else { pool.memory_gb },
                disk_free_gb: if old_agent {
                    0
                } else {
                    rng.below(disk_total as u64) as i64
                },
                disk_total_gb: disk_total,
                classes: vec![pool.class.into()],
                fabrics: pool.fabrics.iter().map(|f| f.to_string()).collect(),
                replicas: 0,
                last_seen_ago: format!("{}s", 1 + rng.below(5)),
                unhealthy,
            };
            (view, pool)
        })
        .collect();

    // Which GPUs are taken, so that placement below never double-books one.
    let mut used: Vec<BTreeSet<i64>> = nodes
        .iter()
        .map(|(n, _)| {
            n.unhealthy
                .iter()
                .filter_map(|l| l.strip_prefix("GPU ")?.split(':').next()?.parse().ok())
                .collect()
        })
        .collect();

    let mut models = Vec::new();
    let mut replicas = Vec::new();
    let mut explains = BTreeMap::new();
    for m in 0..model_count {
        let org = rng.pick(ORGS);
        let family = rng.pick(FAMILIES);
        let name = if rng.chance(25) {
            format!("{}:{}b-{m}", family.to_lowercase(), 1 + rng.below(70))
        } else {
            format!("{org}/{family}-{}B-Instruct-{m}", 1 + rng.below(70))
        };
        let pool = rng.pick(POOLS);
        let want_gpus = *rng.pick(&[1_i64, 2, 4, 8][..if pool.gpus >= 8 { 4 } else { 3 }]);
        let min = if rng.chance(10) {
            0
        } else {
            1 + rng.below(3) as i64
        };
        let profile = format!("tp{want_gpus}-{}", pool.name);
        specs.insert(
            name.clone(),
            Spec {
                profile: profile.clone(),
                pool: pool.name.into(),
                class: pool.class.into(),
                gpus: want_gpus,
                // Not drawn from `rng`, so the cluster is the same either way.
                disk_gb: [0, 40, 140, 690][m % 4],
            },
        );
        let mut rejections = Vec::new();
        let mut placed = 0;
        for _ in 0..min {
            let slot = nodes.iter().enumerate().find_map(|(i, (n, p))| {
                if p.name != pool.name || n.state != NodeState::Ready {
                    return None;
                }
                let free: Vec<i64> = (0..n.gpu_total).filter(|g| !used[i].contains(g)).collect();
                (free.len() as i64 >= want_gpus).then(|| (i, free[..want_gpus as usize].to_vec()))
            });
            let Some((i, gpus)) = slot else {
                rejections.push(Rejection {
                    profile: profile.clone(),
                    pool: pool.name.into(),
                    node: String::new(),
                    reason: format!("no ready node in the pool has {want_gpus} free GPUs"),
                });
                break;
            };
            used[i].extend(gpus.iter().copied());
            let id = format!("r-{:05}", replicas.len() + 1);
            let starting = rng.chance(8);
            replicas.push(SimReplica {
                view: ReplicaView {
                    id: id.clone(),
                    model: name.clone(),
                    state: if starting { "starting" } else { "ready" }.into(),
                    pool: pool.name.into(),
                    endpoint: format!(
                        "http://10.{}.{}.{}:8001",
                        40 + i / 65536,
                        (i / 256) % 256,
                        i % 256
                    ),
                    shards: vec![Shard {
                        id: format!("{id}-s0"),
                        node: nodes[i].0.id.clone(),
                        gpus,
                        err: String::new(),
                    }],
                    age_sec: 0,
                    idle_sec: -1,
                    err: if starting && rng.chance(30) {
                        "engine exited with status 1; restarting".into()
                    } else {
                        String::new()
                    },
                },
                started: now
                    .checked_sub(Duration::from_secs(rng.below(7 * 86400)))
                    .unwrap_or(now),
                last_used: (!starting && rng.chance(80)).then(|| {
                    now.checked_sub(Duration::from_secs(rng.below(3600)))
                        .unwrap_or(now)
                }),
            });
            placed += 1;
        }
        if min > 0 {
            // Every node of the pool that could not take a shard, and why,
            // as llmgw names them (the pool-wide reason last): at thousands
            // of nodes the console's joins then meet explanations that name
            // many nodes, not just a pool.
            let mut named: Vec<Rejection> = nodes
                .iter()
                .enumerate()
                .filter(|(_, (_, p))| p.name == pool.name)
                .filter_map(|(i, (n, _))| {
                    Some(Rejection {
                        profile: profile.clone(),
                        pool: pool.name.into(),
                        node: n.id.clone(),
                        reason: turned_down(n, want_gpus, &used[i])?,
                    })
                })
                .take(NAMED_PER_EXPLANATION)
                .collect();
            named.append(&mut rejections);
            let rejections = named;
            explains.insert(
                name.clone(),
                ExplainView {
                    model: name.clone(),
                    placed: placed > 0,
                    rejections,
                },
            );
        }
        models.push(ModelView {
            name,
            ready: 0,
            min,
            total: 0,
            aliases: Vec::new(),
            profiles: vec![profile],
            fallbacks: Vec::new(),
        });
    }

    let mut orphans = Vec::new();
    for (i, (n, _)) in nodes.iter().enumerate() {
        if !rng.chance(10) {
            continue;
        }
        let paths = (0..1 + rng.below(3))
            .map(|k| {
                format!(
                    "/var/lib/llmgw/cache/sha256-{:012x}/model-{k}.safetensors",
                    rng.next() >> 16
                )
            })
            .collect();
        let bytes = if i % 7 == 0 {
            0
        } else {
            (1 + rng.below(150)) as i64 * (1 << 30)
        };
        orphans.push(OrphanView {
            node: n.id.clone(),
            paths,
            bytes,
        });
    }

    let refusing = nodes
        .iter_mut()
        .take(1)
        .map(|(n, _)| n.id.clone())
        .collect();
    let mut cluster = Cluster::new(
        nodes.into_iter().map(|(n, _)| n).collect(),
        models,
        replicas,
        explains,
        orphans,
        refusing,
    );
    if placed_live {
        cluster.placement = specs;
    }
    cluster
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_cluster() {
        let now = Instant::now();
        let a = build(200, 80, 7).list_models(now);
        let b = build(200, 80, 7).list_models(now);
        let c = build(200, 80, 8).list_models(now);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a.len(), 80);
    }

    #[test]
    fn explanations_name_the_nodes_they_turned_down() {
        let mut c = build(600, 400, 7);
        let now = Instant::now();
        let nodes: BTreeMap<String, NodeView> = c
            .list_nodes(now)
            .into_iter()
            .map(|n| (n.id.clone(), n))
            .collect();
        let named: Vec<Rejection> = c
            .explains
            .values()
            .flat_map(|e| e.rejections.iter().filter(|r| !r.node.is_empty()).cloned())
            .collect();
        assert!(
            named.len() >= 200,
            "only {} rejections name a node",
            named.len()
        );
        for r in named {
            let node = &nodes[&r.node];
            match node.state {
                NodeState::Cordoned => assert_eq!(r.reason, "node is cordoned"),
                NodeState::Draining => assert_eq!(r.reason, "node is draining"),
                _ => assert!(r.reason.starts_with("needs "), "{r:?}"),
            }
        }
    }

    #[test]
    fn no_gpu_is_booked_twice() {
        let mut c = build(300, 200, 3);
        for n in c.list_nodes(Instant::now()) {
            assert!(n.gpu_free >= 0 && n.gpu_free <= n.gpu_total, "{n:?}");
        }
        let mut seen = BTreeSet::new();
        for r in &c.replicas {
            for s in &r.view.shards {
                for g in &s.gpus {
                    assert!(
                        seen.insert((s.node.clone(), *g)),
                        "{} GPU {g} twice",
                        s.node
                    );
                }
            }
        }
    }
}
