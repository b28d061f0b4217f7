//! The demo cluster: a dozen nodes in three pools, and a catalog with a model
//! in every status, every kind of explanation, errors, and orphaned weights.
//! The numbers agree with each other: free GPUs and replica counts are derived
//! from the replicas, and every rejection's reason fits the node it names.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use app::admin_api::types::{
    ExplainView, ModelView, NodeState, NodeView, OrphanView, Rejection, ReplicaView, Shard,
};

use super::cluster::{Cluster, SimReplica};

pub const LLAMA_70B: &str = "meta-llama/Llama-3.1-70B-Instruct";
pub const QWEN_7B: &str = "qwen2.5:7b";
pub const MIXTRAL: &str = "mistralai/Mixtral-8x22B-Instruct-v0.1";
pub const GEMMA: &str = "google/gemma-2-27b-it";
pub const DEEPSEEK: &str = "deepseek-ai/DeepSeek-V3";
pub const PHI: &str = "microsoft/Phi-3.5-mini-instruct";
pub const BGE: &str = "BAAI/bge-m3";
pub const LLAMA_3B: &str = "llama3.2:3b";
pub const SUPPORT_BOT: &str = "acme/support bot:v2";

struct NodeSpec {
    id: &'static str,
    state: NodeState,
    gpus: i64,
    memory_gb: i64,
    disk: (i64, i64),
    class: &'static str,
    fabrics: &'static [&'static str],
    last_seen: &'static str,
    unhealthy: &'static [&'static str],
}

const NODES: &[NodeSpec] = &[
    NodeSpec {
        id: "gpu-h100-01",
        state: NodeState::Ready,
        gpus: 8,
        memory_gb: 2048,
        disk: (3100, 7600),
        class: "h100-80g",
        fabrics: &["nvlink", "infiniband"],
        last_seen: "1s",
        unhealthy: &[],
    },
    NodeSpec {
        id: "gpu-h100-02",
        state: NodeState::Ready,
        gpus: 8,
        memory_gb: 2048,
        disk: (2870, 7600),
        class: "h100-80g",
        fabrics: &["nvlink", "infiniband"],
        last_seen: "2s",
        unhealthy: &[],
    },
    NodeSpec {
        id: "gpu-h100-03",
        state: NodeState::Ready,
        gpus: 8,
        memory_gb: 2048,
        disk: (12, 3800),
        class: "h100-80g",
        fabrics: &["nvlink", "infiniband"],
        last_seen: "1s",
        unhealthy: &[
            "GPU 5: Xid 79, fallen off the bus",
            "GPU 6: uncorrectable ECC errors",
        ],
    },
    NodeSpec {
        id: "gpu-h100-04",
        state: NodeState::Cordoned,
        gpus: 8,
        memory_gb: 2048,
        disk: (7100, 7600),
        class: "h100-80g",
        fabrics: &["nvlink", "infiniband"],
        last_seen: "3s",
        unhealthy: &[],
    },
    NodeSpec {
        id: "gpu-a100-01",
        state: NodeState::Ready,
        gpus: 8,
        memory_gb: 1024,
        disk: (900, 3800),
        class: "a100-80g",
        fabrics: &["nvlink"],
        last_seen: "2s",
        unhealthy: &[],
    },
    NodeSpec {
        id: "gpu-a100-02",
        state: NodeState::Ready,
        gpus: 8,
        memory_gb: 1024,
        disk: (1400, 3800),
        class: "a100-80g",
        fabrics: &["nvlink"],
        last_seen: "1s",
        unhealthy: &[],
    },
    NodeSpec {
        id: "gpu-a100-03",
        state: NodeState::Draining,
        gpus: 8,
        memory_gb: 1024,
        disk: (3500, 3800),
        class: "a100-80g",
        fabrics: &["nvlink"],
        last_seen: "4s",
        unhealthy: &[],
    },
    // An agent too old to report memory or disk: both must read as unknown.
    NodeSpec {
        id: "gpu-a100-04",
        state: NodeState::Ready,
        gpus: 4,
        memory_gb: 0,
        disk: (0, 0),
        class: "a100-40g",
        fabrics: &[],
        last_seen: "48s",
        unhealthy: &[],
    },
    NodeSpec {
        id: "gpu-l40s-01",
        state: NodeState::Ready,
        gpus: 4,
        memory_gb: 512,
        disk: (1200, 1900),
        class: "l40s-48g",
        fabrics: &["pcie"],
        last_seen: "2s",
        unhealthy: &[],
    },
    NodeSpec {
        id: "gpu-l40s-02",
        state: NodeState::Ready,
        gpus: 4,
        memory_gb: 512,
        disk: (8, 480),
        class: "l40s-48g",
        fabrics: &["pcie"],
        last_seen: "1s",
        unhealthy: &[],
    },
    NodeSpec {
        id: "gpu-l40s-03",
        state: NodeState::Ready,
        gpus: 4,
        memory_gb: 512,
        disk: (1650, 1900),
        class: "l40s-48g",
        fabrics: &["pcie"],
        last_seen: "3s",
        unhealthy: &[],
    },
    NodeSpec {
        id: "gpu-l40s-04.rack7.dc-west",
        state: NodeState::Ready,
        gpus: 4,
        memory_gb: 384,
        disk: (700, 1900),
        class: "l40s-48g",
        fabrics: &["pcie"],
        last_seen: "2s",
        unhealthy: &[],
    },
];

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn node(spec: &NodeSpec) -> NodeView {
    NodeView {
        id: spec.id.into(),
        state: spec.state.clone(),
        gpu_free: 0,
        gpu_total: spec.gpus,
        memory_gb: spec.memory_gb,
        disk_free_gb: spec.disk.0,
        disk_total_gb: spec.disk.1,
        classes: strings(&[spec.class]),
        fabrics: strings(spec.fabrics),
        replicas: 0,
        last_seen_ago: spec.last_seen.into(),
        unhealthy: strings(spec.unhealthy),
    }
}

fn model(
    name: &str,
    min: i64,
    aliases: &[&str],
    profiles: &[&str],
    fallbacks: &[&str],
) -> ModelView {
    ModelView {
        name: name.into(),
        ready: 0,
        min,
        total: 0,
        aliases: strings(aliases),
        profiles: strings(profiles),
        fallbacks: strings(fallbacks),
    }
}

struct ReplicaSpec {
    id: &'static str,
    model: &'static str,
    state: &'static str,
    pool: &'static str,
    endpoint: &'static str,
    shards: &'static [(&'static str, &'static [i64], &'static str)],
    age: u64,
    idle: Option<u64>,
    err: &'static str,
}

const REPLICAS: &[ReplicaSpec] = &[
    // Split across two nodes: one replica, two shards.
    ReplicaSpec {
        id: "r-0001",
        model: LLAMA_70B,
        state: "ready",
        pool: "h100",
        endpoint: "http://10.40.1.11:8001",
        shards: &[
            ("gpu-h100-01", &[0, 1, 2, 3], ""),
            ("gpu-h100-02", &[0, 1, 2, 3], ""),
        ],
        age: 6 * 86400 + 3 * 3600,
        idle: Some(2),
        err: "",
    },
    ReplicaSpec {
        id: "r-0002",
        model: LLAMA_70B,
        state: "ready",
        pool: "h100",
        endpoint: "http://10.40.1.11:8002",
        shards: &[("gpu-h100-01", &[4, 5, 6, 7], "")],
        age: 2 * 86400,
        // Unused for hours while another model waits for GPUs on its node.
        idle: Some(5 * 3600 + 12 * 60),
        err: "",
    },
    ReplicaSpec {
        id: "r-0003",
        model: QWEN_7B,
        state: "ready",
        pool: "l40s",
        endpoint: "http://10.40.3.21:8001",
        shards: &[("gpu-l40s-01", &[0], "")],
        age: 11 * 3600,
        idle: Some(40),
        err: "",
    },
    ReplicaSpec {
        id: "r-0004",
        model: QWEN_7B,
        state: "ready",
        pool: "l40s",
        endpoint: "http://10.40.3.23:8001",
        shards: &[("gpu-l40s-03", &[0], "")],
        age: 11 * 3600,
        idle: Some(75),
        err: "",
    },
    // Nothing has reported use of it yet: idle must read as unknown.
    ReplicaSpec {
        id: "r-0005",
        model: BGE,
        state: "ready",
        pool: "l40s",
        endpoint: "http://10.40.3.24:8001",
        shards: &[("gpu-l40s-04.rack7.dc-west", &[0], "")],
        age: 35 * 60,
        idle: None,
        err: "",
    },
    ReplicaSpec {
        id: "r-0006",
        model: MIXTRAL,
        state: "starting",
        pool: "a100",
        endpoint: "http://10.40.2.11:8003",
        shards: &[
            ("gpu-a100-01", &[0, 1, 2, 3], ""),
            (
                "gpu-a100-02",
                &[0, 1, 2, 3],
                "CUDA out of memory while loading weights; retrying",
            ),
        ],
        age: 4 * 60,
        idle: None,
        err: "engine exited with status 1; restart 3 of 5",
    },
    ReplicaSpec {
        id: "r-0007",
        model: GEMMA,
        state: "ready",
        pool: "h100",
        endpoint: "http://10.40.1.12:8004",
        shards: &[("gpu-h100-02", &[4, 5], "")],
        age: 9 * 3600,
        idle: Some(610),
        err: "",
    },
];

fn replica(spec: &ReplicaSpec, now: Instant) -> SimReplica {
    let ago = |secs: u64| now.checked_sub(Duration::from_secs(secs)).unwrap_or(now);
    SimReplica {
        view: ReplicaView {
            id: spec.id.into(),
            model: spec.model.into(),
            state: spec.state.into(),
            pool: spec.pool.into(),
            endpoint: spec.endpoint.into(),
            shards: spec
                .shards
                .iter()
                .enumerate()
                .map(|(i, (node, gpus, err))| Shard {
                    id: format!("{}-s{i}", spec.id),
                    node: (*node).into(),
                    gpus: gpus.to_vec(),
                    err: (*err).into(),
                })
                .collect(),
            age_sec: 0,
            idle_sec: -1,
            err: spec.err.into(),
        },
        started: ago(spec.age),
        last_used: spec.idle.map(ago),
    }
}

fn rejection(profile: &str, pool: &str, node: &str, reason: &str) -> Rejection {
    Rejection {
        profile: profile.into(),
        pool: pool.into(),
        node: node.into(),
        reason: reason.into(),
    }
}

fn explains() -> BTreeMap<String, ExplainView> {
    let view = |model: &str, placed: bool, rejections: Vec<Rejection>| {
        (
            model.to_string(),
            ExplainView {
                model: model.into(),
                placed,
                rejections,
            },
        )
    };
    BTreeMap::from([
        view(QWEN_7B, true, vec![]),
        view(BGE, true, vec![]),
        view(
            LLAMA_70B,
            true,
            vec![
                rejection(
                    "tp4-h100",
                    "h100",
                    "gpu-h100-03",
                    "insufficient disk: needs 141G, 12G free",
                ),
                rejection("tp4-h100", "h100", "gpu-h100-04", "node is cordoned"),
                rejection("tp4-h100", "a100", "", "pool has no h100-80g GPUs"),
                rejection("tp4-h100", "l40s", "", "pool has no h100-80g GPUs"),
            ],
        ),
        view(
            MIXTRAL,
            true,
            vec![
                rejection("tp8-a100", "a100", "gpu-a100-03", "node is draining"),
                rejection(
                    "tp8-a100",
                    "a100",
                    "gpu-a100-04",
                    "needs a100-80g GPUs, node has a100-40g",
                ),
            ],
        ),
        view(
            GEMMA,
            false,
            vec![
                rejection(
                    "tp2-h100",
                    "h100",
                    "gpu-h100-01",
                    "needs 2 free GPUs, 0 free",
                ),
                rejection(
                    "tp2-h100",
                    "h100",
                    "gpu-h100-02",
                    "anti-affinity: already runs a replica of this model",
                ),
                rejection(
                    "tp2-h100",
                    "h100",
                    "gpu-h100-03",
                    "insufficient disk: needs 55G, 12G free",
                ),
                rejection("tp2-h100", "h100", "gpu-h100-04", "node is cordoned"),
                rejection("tp2-h100", "a100", "", "pool has no h100-80g GPUs"),
                rejection("tp2-h100", "l40s", "", "pool has no h100-80g GPUs"),
            ],
        ),
        view(
            DEEPSEEK,
            false,
            vec![
                rejection(
                    "tp8-h100",
                    "h100",
                    "gpu-h100-01",
                    "needs 8 free GPUs, 0 free",
                ),
                rejection(
                    "tp8-h100",
                    "h100",
                    "gpu-h100-02",
                    "needs 8 free GPUs, 2 free",
                ),
                rejection(
                    "tp8-h100",
                    "h100",
                    "gpu-h100-03",
                    "needs 8 free GPUs, 6 free",
                ),
                rejection(
                    "tp8-h100",
                    "h100",
                    "gpu-h100-03",
                    "insufficient disk: needs 690G, 12G free",
                ),
                rejection("tp8-h100", "h100", "gpu-h100-04", "node is cordoned"),
                rejection("tp8-h100", "a100", "", "pool has no h100-80g GPUs"),
                rejection("tp8-h100", "l40s", "", "pool has no h100-80g GPUs"),
                rejection(
                    "tp16-h100-ib",
                    "",
                    "",
                    "no pool offers 16 GPUs over infiniband",
                ),
            ],
        ),
    ])
}

fn cache_path(hash: &str, file: &str) -> String {
    format!("/var/lib/llmgw/cache/sha256-{hash}/{file}")
}

fn orphans() -> Vec<OrphanView> {
    vec![
        OrphanView {
            node: "gpu-h100-01".into(),
            paths: (1..=3)
                .map(|i| {
                    cache_path(
                        "5f1c9e0a7b3d",
                        &format!("Meta-Llama-3-70B-Instruct/model-{i:05}-of-00003.safetensors"),
                    )
                })
                .collect(),
            bytes: 152_382_810_112,
        },
        OrphanView {
            node: "gpu-a100-01".into(),
            paths: vec![
                cache_path(
                    "a04be1d29c88",
                    "Mixtral-8x7B-Instruct-v0.1/model-00001-of-00002.safetensors",
                ),
                cache_path(
                    "a04be1d29c88",
                    "Mixtral-8x7B-Instruct-v0.1/model-00002-of-00002.safetensors",
                ),
            ],
            bytes: 29_419_577_344,
        },
        // On the node whose disk turns models away: collecting helps, but
        // not enough on its own.
        OrphanView {
            node: "gpu-h100-03".into(),
            paths: vec![cache_path(
                "e3b7a2f4c915",
                "gemma-2-9b-it/model.safetensors",
            )],
            bytes: 28_454_158_336,
        },
        // The node did not report a size: "size unknown", never "0 B".
        OrphanView {
            node: "gpu-l40s-02".into(),
            paths: vec![cache_path("9d2e44c01f6a", "qwen2-7b-instruct-q4_k_m.gguf")],
            bytes: 0,
        },
        OrphanView {
            node: "gpu-a100-04".into(),
            paths: vec![cache_path("c7710b3e5e02", "phi-2/model.safetensors")],
            bytes: 5_559_267_328,
        },
    ]
}

pub fn build() -> Cluster {
    let now = Instant::now();
    let models = vec![
        model(
            LLAMA_70B,
            2,
            &["llama-70b", "default-large"],
            &["tp4-h100"],
            &[QWEN_7B],
        ),
        model(QWEN_7B, 2, &["small"], &["single-l40s"], &[]),
        model(MIXTRAL, 1, &[], &["tp8-a100"], &[LLAMA_70B]),
        model(GEMMA, 2, &["gemma"], &["tp2-h100"], &[QWEN_7B]),
        model(
            DEEPSEEK,
            1,
            &["deepseek"],
            &["tp8-h100", "tp16-h100-ib"],
            &[LLAMA_70B],
        ),
        model(PHI, 1, &[], &["single-l40s"], &[]),
        model(BGE, 1, &["embeddings"], &["single-l40s"], &[]),
        model(LLAMA_3B, 0, &[], &["single-l40s"], &[]),
        model(SUPPORT_BOT, 0, &["support"], &["single-l40s"], &[QWEN_7B]),
    ];
    Cluster::new(
        NODES.iter().map(node).collect(),
        models,
        REPLICAS.iter().map(|r| replica(r, now)).collect(),
        explains(),
        orphans(),
        BTreeSet::from(["gpu-a100-04".to_string()]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::format::ModelStatus;

    #[test]
    fn the_demo_has_a_model_in_every_status() {
        let mut c = build();
        let statuses: BTreeSet<ModelStatus> = c
            .list_models(Instant::now())
            .iter()
            .map(ModelStatus::of)
            .collect();
        assert_eq!(statuses.len(), 4, "{statuses:?}");
    }

    #[test]
    fn every_rejected_node_exists() {
        let c = build();
        for e in c.explains.values() {
            for r in e.rejections.iter().filter(|r| !r.node.is_empty()) {
                assert!(c.nodes.iter().any(|n| n.id == r.node), "{}", r.node);
            }
        }
    }

    #[test]
    fn free_gpus_match_the_reasons_given() {
        let mut c = build();
        let nodes = c.list_nodes(Instant::now());
        let free = |id: &str| nodes.iter().find(|n| n.id == id).map(|n| n.gpu_free);
        assert_eq!(free("gpu-h100-01"), Some(0));
        assert_eq!(free("gpu-h100-02"), Some(2));
        assert_eq!(free("gpu-h100-03"), Some(6));
    }
}
