//! A node's GPUs one by one: free, held by which replica's shard, or
//! unhealthy (and then, if a shard still sits on it, by which). What the
//! node page draws, and what the cordon and drain dialogs warn of.

use serde::{Deserialize, Serialize};

use crate::admin_api::types::{NodeView, ReplicaView};

/// One GPU of a node.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpuSlot {
    pub index: i64,
    /// The replica, shard and model holding it.
    pub held_by: Option<(String, String, String)>,
    /// Why it is unhealthy, as llmgw says it.
    pub unhealthy: Option<String>,
}

/// The GPU an unhealthy line names ("GPU 5: Xid 79, …" names 5); `None`
/// when the line names none the console can read.
pub fn gpu_index(line: &str) -> Option<i64> {
    let rest = line.trim_start().strip_prefix("GPU")?.trim_start();
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Each GPU of `node`, in index order; unhealthy lines that name no GPU
/// the node has are returned apart, to be shown as they are.
pub fn strip(node: &NodeView, replicas: &[ReplicaView]) -> (Vec<GpuSlot>, Vec<String>) {
    let total = node.gpu_total.clamp(0, 1024);
    let mut slots: Vec<GpuSlot> = (0..total)
        .map(|index| GpuSlot {
            index,
            ..GpuSlot::default()
        })
        .collect();
    let mut unplaced = Vec::new();
    for line in &node.unhealthy {
        match gpu_index(line).and_then(|i| slots.get_mut(i as usize)) {
            Some(slot) => slot.unhealthy = Some(line.clone()),
            None => unplaced.push(line.clone()),
        }
    }
    for r in replicas {
        for s in r.shards.iter().filter(|s| s.node == node.id) {
            for g in &s.gpus {
                if let Some(slot) = usize::try_from(*g).ok().and_then(|i| slots.get_mut(i)) {
                    slot.held_by = Some((r.id.clone(), s.id.clone(), r.model.clone()));
                }
            }
        }
    }
    (slots, unplaced)
}

/// The replicas with a shard on one of `node`'s unhealthy GPUs.
pub fn on_unhealthy(node: &NodeView, replicas: &[ReplicaView]) -> Vec<String> {
    let (slots, _) = strip(node, replicas);
    let mut ids: Vec<String> = slots
        .into_iter()
        .filter(|s| s.unhealthy.is_some())
        .filter_map(|s| s.held_by.map(|(replica, _, _)| replica))
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admin_api::types::Shard;

    #[test]
    fn each_gpu_says_what_holds_it_and_whether_it_is_healthy() {
        let node = NodeView {
            id: "n".into(),
            gpu_total: 4,
            unhealthy: vec![
                "GPU 1: Xid 79, fallen off the bus".into(),
                "GPU 3: uncorrectable ECC errors".into(),
                "board fan failed".into(),
            ],
            ..Default::default()
        };
        let replicas = [ReplicaView {
            id: "r-1".into(),
            model: "m".into(),
            shards: vec![
                Shard {
                    id: "r-1-s0".into(),
                    node: "n".into(),
                    gpus: vec![0, 1],
                    ..Default::default()
                },
                Shard {
                    id: "r-1-s1".into(),
                    node: "other".into(),
                    gpus: vec![2],
                    ..Default::default()
                },
            ],
            ..Default::default()
        }];
        let (slots, unplaced) = strip(&node, &replicas);
        let held = |i: usize| slots[i].held_by.as_ref().map(|h| h.1.as_str());
        assert_eq!(
            (held(0), held(1), held(2), held(3)),
            (Some("r-1-s0"), Some("r-1-s0"), None, None)
        );
        assert!(slots[1].unhealthy.is_some() && slots[3].unhealthy.is_some());
        assert!(slots[0].unhealthy.is_none());
        assert_eq!(unplaced, ["board fan failed"]);
        assert_eq!(on_unhealthy(&node, &replicas), ["r-1"]);
        assert_eq!(gpu_index("GPU 12 Xid 48"), Some(12));
        assert_eq!(gpu_index("fan"), None);
    }
}
