//! What would change a rejection, found from the live data the console
//! already holds: the node's state and who set it, the orphaned weights it
//! keeps, its unhealthy GPUs, the replicas idling on it, when it last
//! reported, and what the model's shard needs ([`crate::estimate`]).
//!
//! A fix is said to work only when the estimate finds that, once it is
//! taken, the node would take the profile: every rejection of that node for
//! that profile is then gone. A reason's words only say which check it is
//! about ([`crate::reasons`]); one the estimate cannot check stays in the way.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::admin_api::types::{NodeState, NodeView, OrphanView, Rejection, ReplicaView};
use crate::dated::{Dated, DatedNode};
use crate::estimate::{self, Capacity, GB, Need, Shortfall, Verdict};
use crate::fast_hash::{FastMap, FastSet};
use crate::format;
use crate::joins::runs_on;
use crate::reasons::{self, Concern, Vocabulary};
use llmgw_journal::record::StateSince;

/// A replica unused for this long is worth naming as a holder of GPUs.
pub const IDLE_FOR_HOURS_SEC: i64 = 3600;
/// A node whose agent has been silent this long has not reported.
pub const SILENT_SEC: i64 = 120;

/// Whether a node's agent has gone silent: the fixes name it, the wall
/// counts it.
pub fn is_silent(node: &NodeView) -> bool {
    node.state == NodeState::NotReported
        || format::parse_duration(&node.last_seen_ago).is_some_and(|s| s >= SILENT_SEC)
}

/// What one shard of a model's profile needs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileNeed {
    pub model: String,
    pub profile: String,
    pub need: Need,
}

/// One model's explanation, as the fixes learn from it.
pub struct Explained<'a> {
    pub model: &'a str,
    /// The model's profiles, as the catalog lists them.
    pub profiles: &'a [String],
    /// Every rejection of the model's explanation.
    pub rejections: &'a [Rejection],
}

/// What the console knows around the nodes some rejections name: those
/// nodes (which the server dates from the journal after `around`: who set
/// their state and why, without which no state is held), their
/// orphaned weights, the replicas idling on them, the GPUs held there, and
/// what each explained profile needs. Sent with a page so that the browser
/// works out the same fixes as the server.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Surroundings {
    pub nodes: Vec<DatedNode>,
    pub orphans: Vec<OrphanView>,
    /// Only replicas idle for hours, with a shard on one of `nodes`.
    pub idle_replicas: Vec<ReplicaView>,
    /// GPUs held by the replicas' shards on each of `nodes`; a node some
    /// shard of which lists no GPUs is left out (not known).
    pub in_use: Vec<(String, i64)>,
    pub needs: Vec<ProfileNeed>,
    pub words: Vocabulary,
}

/// Of `own` (the replicas of the explained model), those that run
/// `profile`: all of them for a model of that one profile, else those in a
/// pool that only this profile's rejections name (a replica does not say
/// which profile placed it).
fn running<'a>(
    explained: &Explained<'_>,
    profile: &str,
    own: &[&'a ReplicaView],
) -> Vec<&'a ReplicaView> {
    let own = own.iter().copied();
    if !explained.profiles.iter().any(|p| p == profile) {
        // A profile the catalog does not list for the model: none of its
        // replicas can be told to run it.
        return Vec::new();
    }
    if explained.profiles.len() == 1 {
        return own.collect();
    }
    let pools_of = |p: &str| -> Vec<&str> {
        explained
            .rejections
            .iter()
            .filter(|r| r.profile == p && !r.pool.is_empty())
            .map(|r| r.pool.as_str())
            .collect()
    };
    let mine = pools_of(profile);
    let others: Vec<&str> = explained
        .profiles
        .iter()
        .filter(|p| *p != profile)
        .flat_map(|p| pools_of(p))
        .collect();
    own.filter(|r| mine.contains(&r.pool.as_str()) && !others.contains(&r.pool.as_str()))
        .collect()
}

impl Surroundings {
    /// The part of the cluster's lists that concerns the nodes `named`, and
    /// what each profile of `explained` needs.
    pub fn around(
        named: &dyn Fn(&str) -> bool,
        nodes: &[NodeView],
        orphans: &[OrphanView],
        replicas: &[ReplicaView],
        explained: &[Explained<'_>],
    ) -> Self {
        let words = Vocabulary::of(nodes);
        let in_use = estimate::gpus_in_use(replicas, named);
        // Only the nodes the rejections name are looked up: a map of all
        // 20,000 would cost more than everything it is used for.
        let asked: FastSet<&str> = explained
            .iter()
            .flat_map(|e| e.rejections.iter().map(|r| r.node.as_str()))
            .collect();
        let by_id: FastMap<&str, &NodeView> = nodes
            .iter()
            .filter(|n| asked.contains(n.id.as_str()))
            .map(|n| (n.id.as_str(), n))
            .collect();
        // Each explained model's replicas, in one pass: hundreds of models
        // name a node at 20,000 nodes, and each has several profiles.
        let mut of_model: FastMap<&str, Vec<&ReplicaView>> =
            explained.iter().map(|e| (e.model, Vec::new())).collect();
        for r in replicas {
            if let Some(own) = of_model.get_mut(r.model.as_str()) {
                own.push(r);
            }
        }
        let mut needs = Vec::new();
        for e in explained {
            let own = of_model.get(e.model).map_or(&[][..], Vec::as_slice);
            let mut profiles: Vec<&str> = e.profiles.iter().map(String::as_str).collect();
            for r in e.rejections {
                if !profiles.contains(&r.profile.as_str()) {
                    profiles.push(&r.profile);
                }
            }
            for p in profiles {
                needs.push(ProfileNeed {
                    model: e.model.to_string(),
                    profile: p.to_string(),
                    need: Need::learn(
                        p,
                        e.rejections,
                        &running(e, p, own),
                        &|id: &str| by_id.get(id).copied(),
                        &words,
                    ),
                });
            }
        }
        let nodes: Vec<DatedNode> = nodes
            .iter()
            .filter(|n| named(&n.id))
            .cloned()
            .map(Dated::undated)
            .collect();
        Self {
            in_use: nodes
                .iter()
                .filter_map(|n| {
                    let used = in_use.get(n.id.as_str()).copied().unwrap_or(Some(0))?;
                    Some((n.id.clone(), used))
                })
                .collect(),
            nodes,
            orphans: orphans
                .iter()
                .filter(|o| named(&o.node) && !o.paths.is_empty())
                .cloned()
                .collect(),
            idle_replicas: replicas
                .iter()
                .filter(|r| r.idle_sec >= IDLE_FOR_HOURS_SEC)
                .filter(|r| r.shards.iter().any(|s| named(&s.node)))
                .cloned()
                .collect(),
            needs,
            words,
        }
    }

    pub fn index(&self) -> Index<'_> {
        Index {
            nodes: self.nodes.iter().map(|n| (n.id.as_str(), n)).collect(),
            orphans: self.orphans.iter().map(|o| (o.node.as_str(), o)).collect(),
            in_use: self.in_use.iter().map(|(n, g)| (n.as_str(), *g)).collect(),
            needs: self
                .needs
                .iter()
                .map(|p| ((p.model.as_str(), p.profile.as_str()), &p.need))
                .collect(),
            surroundings: self,
        }
    }
}

/// [`Surroundings`] by node id, built once per render.
pub struct Index<'a> {
    nodes: HashMap<&'a str, &'a DatedNode>,
    orphans: HashMap<&'a str, &'a OrphanView>,
    in_use: HashMap<&'a str, i64>,
    needs: HashMap<(&'a str, &'a str), &'a Need>,
    surroundings: &'a Surroundings,
}

/// What taking a change would do, by the estimate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// The node would then take the profile: every rejection of it there
    /// goes.
    Works,
    /// Not enough on its own: what else stands in the way.
    Blocked(Vec<Shortfall>),
    /// Nothing found against it, but these could not be checked.
    Unknown(Vec<String>),
}

/// One thing that would change a rejection, or explain it further.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Fix {
    /// The node is out of placement by an operator's hand. `held`: who set
    /// that state through a console and why, when the journal knows: a
    /// deliberate state, never the first thing to undo.
    Uncordon {
        node: String,
        state: NodeState,
        profile: String,
        held: Option<StateSince>,
        outcome: Outcome,
    },
    /// Collecting the node's orphaned weights frees `bytes` (0: size not
    /// reported); `short_gb` is how much more room the rejection asked for
    /// than the node has, when the reason says how much it needs.
    Collect {
        node: String,
        bytes: i64,
        short_gb: Option<i64>,
        profile: String,
        outcome: Outcome,
    },
    /// The reason says the node is out of placement, but it is back: the
    /// explanation is older than the node's state.
    NoLongerTrue {
        node: String,
        since: Option<StateSince>,
    },
    /// GPUs kept out of placement, one line each with why.
    UnhealthyGpus { node: String, gpus: Vec<String> },
    /// Replicas unused for hours holding GPUs on the node.
    IdleReplicas {
        node: String,
        replicas: Vec<IdleReplica>,
    },
    /// The node's agent is silent (`last_seen` as the server says it) or
    /// the node is no longer listed (`None`).
    Unreported {
        node: String,
        last_seen: Option<String>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdleReplica {
    pub id: String,
    pub model: String,
    pub idle_sec: i64,
}

/// Who set a node's state and why, when the journal knows either: the mark
/// of a deliberate state.
pub fn hold_of(node: &DatedNode) -> Option<StateSince> {
    node.state_since()
        .filter(|s| s.by.is_some() || s.reason.is_some())
        .cloned()
}

/// "held cordoned by jane 2 m ago: RMA 5120".
pub fn hold_sentence(state: &NodeState, hold: &StateSince) -> String {
    format!("held {state}{}", who_and_why(hold))
}

/// " by jane 2 m ago: RMA 5120": who set a state, when and why.
pub fn who_and_why(hold: &StateSince) -> String {
    let mut text = String::new();
    if let Some(by) = &hold.by {
        text.push_str(&format!(" by {by}"));
    }
    if hold.at_least {
        text.push_str(&format!(
            " since at least {}",
            format::moment(hold.at, hold.checked)
        ));
    } else {
        text.push_str(&format!(" {} ago", format::span(hold.checked - hold.at)));
    }
    if let Some(reason) = &hold.reason {
        text.push_str(&format!(": {reason}"));
    }
    text
}

/// What taking a change that removes rejections of `removes` would do for
/// the node's `group` of rejections (one profile's), with `cap` the node
/// after the change.
fn outcome(
    group: &[&Rejection],
    need: &Need,
    cap: &Capacity,
    words: &Vocabulary,
    removes: Concern,
) -> Outcome {
    let mut said = Vec::new();
    let mut unknown = Vec::new();
    for r in group {
        match estimate::uncovered(&r.reason, need, words)[..] {
            [] => {}
            // Only what the change itself answers, by how much unknown.
            [only] if only == removes => {
                unknown.push(format!("whether that answers \u{201c}{}\u{201d}", r.reason));
            }
            _ => said.push(Shortfall::Said(r.reason.clone())),
        }
    }
    if let Some(node) = group.first().map(|r| r.node.as_str())
        && need.hosts.iter().any(|h| h == node)
    {
        unknown.push(
            "whether llmgw puts a second replica of the model on a node that runs one".into(),
        );
    }
    match estimate::would_take(cap, need) {
        Verdict::Short(mut short) => {
            short.extend(said);
            Outcome::Blocked(short)
        }
        _ if !said.is_empty() => Outcome::Blocked(said),
        Verdict::Unknown(mut u) => {
            u.extend(unknown);
            Outcome::Unknown(u)
        }
        Verdict::Fits if unknown.is_empty() => Outcome::Works,
        Verdict::Fits => Outcome::Unknown(unknown),
    }
}

impl Index<'_> {
    /// A named node as it is now, dated.
    pub fn node(&self, id: &str) -> Option<&DatedNode> {
        self.nodes.get(id).copied()
    }

    /// The fixes of each of `rejections`, all of `model`'s, in their order,
    /// best first for each.
    pub fn advise(&self, model: &str, rejections: &[Rejection]) -> Vec<Vec<Fix>> {
        let mut groups: HashMap<(&str, &str), Vec<&Rejection>> = HashMap::new();
        for r in rejections.iter().filter(|r| !r.node.is_empty()) {
            groups
                .entry((r.node.as_str(), r.profile.as_str()))
                .or_default()
                .push(r);
        }
        rejections
            .iter()
            .map(|r| {
                let group = groups
                    .get(&(r.node.as_str(), r.profile.as_str()))
                    .map_or(&[][..], Vec::as_slice);
                self.fixes(model, r, group)
            })
            .collect()
    }

    /// Every fix for `rejection`, given the other rejections of the same
    /// node for the same profile (`group`, itself included).
    fn fixes(&self, model: &str, rejection: &Rejection, group: &[&Rejection]) -> Vec<Fix> {
        let id = rejection.node.as_str();
        if id.is_empty() {
            return Vec::new();
        }
        let node_id = id.to_string();
        let Some(node) = self.nodes.get(id).copied() else {
            return vec![Fix::Unreported {
                node: node_id,
                last_seen: None,
            }];
        };
        let words = &self.surroundings.words;
        let need = self
            .needs
            .get(&(model, rejection.profile.as_str()))
            .map(|n| (*n).clone())
            .unwrap_or_default();
        let cap = Capacity::of(node, self.in_use.get(id).copied());
        let concerns = reasons::concerns(&rejection.reason, words);
        let about = |c: Concern| concerns.contains(&c);
        let mut fixes = Vec::new();
        if node.state.is_cordoned() {
            fixes.push(Fix::Uncordon {
                node: node_id.clone(),
                state: node.state.clone(),
                profile: rejection.profile.clone(),
                held: hold_of(node),
                outcome: outcome(
                    group,
                    &need,
                    &cap.clone().uncordoned(),
                    words,
                    Concern::State,
                ),
            });
        } else if concerns == [Concern::State] && node.state == NodeState::Ready {
            fixes.push(Fix::NoLongerTrue {
                node: node_id.clone(),
                since: node.state_since().cloned(),
            });
        }
        if about(Concern::Disk)
            && let Some(orphans) = self.orphans.get(id)
        {
            let bytes = orphans.bytes.max(0);
            let short_gb = reasons::quoted_gb(&rejection.reason)
                .zip(cap.disk_free_gb)
                .map(|(need, free)| (need - free).max(0));
            let outcome = if bytes == 0 {
                Outcome::Unknown(vec!["how much collecting would free".into()])
            } else {
                outcome(
                    group,
                    &need,
                    &cap.clone().freed(bytes),
                    words,
                    Concern::Disk,
                )
            };
            fixes.push(Fix::Collect {
                node: node_id.clone(),
                bytes,
                short_gb,
                profile: rejection.profile.clone(),
                outcome,
            });
        }
        if about(Concern::Gpus) || about(Concern::Health) {
            if !node.unhealthy.is_empty() {
                fixes.push(Fix::UnhealthyGpus {
                    node: node_id.clone(),
                    gpus: node.unhealthy.clone(),
                });
            }
            let idle: Vec<IdleReplica> = self
                .surroundings
                .idle_replicas
                .iter()
                .filter(|r| runs_on(r, id))
                .map(|r| IdleReplica {
                    id: r.id.clone(),
                    model: r.model.clone(),
                    idle_sec: r.idle_sec,
                })
                .collect();
            if !idle.is_empty() {
                fixes.push(Fix::IdleReplicas {
                    node: node_id.clone(),
                    replicas: idle,
                });
            }
        }
        if is_silent(node) {
            fixes.push(Fix::Unreported {
                node: node_id,
                last_seen: Some(node.last_seen_ago.clone()),
            });
        }
        fixes
    }
}

fn shortfalls(list: &[Shortfall]) -> String {
    list.iter()
        .map(Shortfall::describe)
        .collect::<Vec<_>>()
        .join("; ")
}

impl Fix {
    pub fn node(&self) -> &str {
        match self {
            Self::Uncordon { node, .. }
            | Self::Collect { node, .. }
            | Self::NoLongerTrue { node, .. }
            | Self::UnhealthyGpus { node, .. }
            | Self::IdleReplicas { node, .. }
            | Self::Unreported { node, .. } => node,
        }
    }

    /// Whether taking this action from the console would, by the estimate,
    /// remove every rejection of its node for its profile.
    pub fn in_reach(&self) -> bool {
        match self {
            Self::Uncordon { outcome, .. } | Self::Collect { outcome, .. } => {
                *outcome == Outcome::Works
            }
            _ => false,
        }
    }

    /// Whether this fix would undo a deliberate state: one whose setter or
    /// reason the journal knows, or a drain, which someone started to empty
    /// the node.
    pub fn held(&self) -> bool {
        match self {
            Self::Uncordon { held, state, .. } => held.is_some() || *state == NodeState::Draining,
            _ => false,
        }
    }

    /// The fix as one line an operator reads beside the rejection.
    pub fn sentence(&self) -> String {
        match self {
            Self::Uncordon {
                node,
                state,
                profile,
                held,
                outcome,
            } => {
                let what = match held {
                    Some(h) => format!("{node} is {}", hold_sentence(state, h)),
                    None if *state == NodeState::Draining => {
                        format!("{node} is draining: someone is emptying it on purpose")
                    }
                    None => format!("{node} is {state}"),
                };
                match (outcome, self.held()) {
                    (Outcome::Works, false) => format!(
                        "{what}; it would take {profile} once back in placement: uncordon {node}"
                    ),
                    (Outcome::Works, true) => format!(
                        "{what}. It would take {profile} once back in placement; uncordon {node} \
                         only if that no longer stands"
                    ),
                    (Outcome::Blocked(short), _) => format!(
                        "{what}, and {}: uncordoning alone would not place {profile} here",
                        shortfalls(short)
                    ),
                    (Outcome::Unknown(unknown), _) => format!(
                        "{what}; whether it would take {profile} once back in placement cannot \
                         be told (not known: {})",
                        unknown.join("; ")
                    ),
                }
            }
            Self::Collect {
                node,
                bytes,
                short_gb,
                profile,
                outcome,
            } => {
                let frees = if *bytes > 0 {
                    format!("frees {}", format::file_size(*bytes))
                } else {
                    "frees an unreported amount".to_string()
                };
                let enough = short_gb.is_some_and(|s| *bytes >= s.saturating_mul(GB));
                let need = match short_gb {
                    Some(0) => "; it already has the room it was asked for".to_string(),
                    Some(short) if enough => format!("; it needs {short} GB more: enough"),
                    Some(short) => format!("; it needs {short} GB more"),
                    None => String::new(),
                };
                let then = match outcome {
                    Outcome::Works => String::new(),
                    Outcome::Blocked(short) => {
                        let rest: Vec<Shortfall> = short
                            .iter()
                            .filter(|s| {
                                !(matches!(s, Shortfall::Disk { .. }) && short_gb.is_some())
                            })
                            .cloned()
                            .collect();
                        if rest.is_empty() {
                            String::new()
                        } else {
                            format!(
                                "; but {}: collecting alone would not place {profile} here",
                                shortfalls(&rest)
                            )
                        }
                    }
                    Outcome::Unknown(unknown) => format!(
                        "; whether it would then take {profile} cannot be told (not known: {})",
                        unknown.join("; ")
                    ),
                };
                format!("collecting orphaned weights on {node} {frees}{need}{then}")
            }
            Self::NoLongerTrue { node, since } => match since {
                Some(s) if !s.at_least => format!(
                    "no longer true: {node} is ready since {}",
                    format::moment(s.at, s.checked)
                ),
                _ => format!("no longer true: {node} is ready now"),
            },
            Self::UnhealthyGpus { node, gpus } => format!(
                "{} on {node} kept out of placement: {}",
                format::count(gpus.len(), "unhealthy GPU", "unhealthy GPUs"),
                gpus.join("; ")
            ),
            Self::IdleReplicas { node, replicas } => format!(
                "GPUs on {node} held by {} idle for hours: {}",
                format::count(replicas.len(), "replica", "replicas"),
                replicas
                    .iter()
                    .map(|r| format!(
                        "{} ({}) idle {}",
                        r.id,
                        r.model,
                        format::duration(r.idle_sec)
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Self::Unreported {
                node,
                last_seen: Some(seen),
            } => format!(
                "{node} has not reported since {} ago: its agent may be down",
                format::or_dash(seen)
            ),
            Self::Unreported {
                node,
                last_seen: None,
            } => format!("{node} is no longer listed by the control plane"),
        }
    }

    /// The action as a verb phrase, for the page's headline.
    fn gerund(&self) -> String {
        match self {
            Self::Uncordon { node, .. } => format!("uncordoning {node}"),
            Self::Collect { node, .. } => format!("collecting orphaned weights on {node}"),
            _ => String::new(),
        }
    }
}

/// One action in reach and how many rejections it would remove.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Remedy {
    pub fix: Fix,
    pub removes: usize,
}

/// What the fixes add up to, over a set of rejections.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outlook {
    pub rejections: usize,
    /// Rejections with an action in reach that undoes nobody's hold.
    pub in_reach: usize,
    /// Rejections whose only action in reach undoes a hold.
    pub held: usize,
    /// Rejections with only a lead (unhealthy GPUs, idle replicas, a silent
    /// node, a change that would not be enough, or one that cannot be told).
    pub with_lead: usize,
    /// Actions in reach: those that undo no hold first, the one that
    /// removes most first; those that undo a hold last.
    pub remedies: Vec<Remedy>,
}

impl Outlook {
    /// `fixes`: those of each rejection, as [`Index::advise`] gives them.
    pub fn of(fixes: &[Vec<Fix>]) -> Self {
        let mut outlook = Self {
            rejections: fixes.len(),
            ..Self::default()
        };
        // Where each action is in `remedies`: thousands of cordoned nodes
        // must not be looked for one by one.
        let mut at: HashMap<(std::mem::Discriminant<Fix>, String), usize> = HashMap::new();
        for fixes in fixes {
            let reach: Vec<&Fix> = fixes.iter().filter(|f| f.in_reach()).collect();
            if reach.iter().any(|f| !f.held()) {
                outlook.in_reach += 1;
            } else if !reach.is_empty() {
                outlook.held += 1;
            } else if !fixes.is_empty() {
                outlook.with_lead += 1;
            }
            for fix in reach {
                let key = (std::mem::discriminant(fix), fix.node().to_string());
                match at.get(&key) {
                    Some(&i) => outlook.remedies[i].removes += 1,
                    None => {
                        at.insert(key, outlook.remedies.len());
                        outlook.remedies.push(Remedy {
                            fix: fix.clone(),
                            removes: 1,
                        });
                    }
                }
            }
        }
        outlook
            .remedies
            .sort_by_key(|m| (m.fix.held(), std::cmp::Reverse(m.removes)));
        outlook
    }

    /// The page's headline: how many rejections have a fix in reach, and the
    /// best one, which never undoes somebody's hold.
    pub fn sentence(&self) -> String {
        let n = self.rejections;
        let has = |k: usize| if k == 1 { "has" } else { "have" };
        let leads = match self.with_lead {
            0 => String::new(),
            k => format!(" {k} more {} a lead, below.", has(k)),
        };
        let held = match self.held {
            0 => String::new(),
            k => format!(
                " {k} more would go if a held node were put back; each hold was set on purpose, below."
            ),
        };
        match self.remedies.first().filter(|m| !m.fix.held()) {
            None if self.held == 0 && self.with_lead == 0 => {
                "No rejection has a fix the console can see.".to_string()
            }
            None => format!(
                "No rejection has a fix in reach from here.{held}{}",
                match self.with_lead {
                    0 => String::new(),
                    k => format!(" {k} of {n} {} a lead, below.", has(k)),
                }
            ),
            Some(best) => format!(
                "{} of {n} {} {} a fix in reach; the best: {} would remove {} of {n}.{held}{leads}",
                self.in_reach,
                if n == 1 { "rejection" } else { "rejections" },
                has(self.in_reach),
                best.fix.gerund(),
                best.removes,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admin_api::types::Shard;
    use crate::estimate::tests::rejection;
    use llmgw_journal::record::NodeSince;

    const MODEL: &str = "m";

    fn node(id: &str, state: NodeState, free: i64) -> NodeView {
        NodeView {
            id: id.into(),
            state,
            gpu_free: free,
            gpu_total: 8,
            disk_free_gb: 3000,
            disk_total_gb: 3800,
            classes: vec!["h100-80g".into()],
            last_seen_ago: "1s".into(),
            ..Default::default()
        }
    }

    /// `w` with `node` dated as the journal dates a state a console set.
    fn held(mut w: Surroundings, node: &str, by: &str, reason: &str) -> Surroundings {
        let n = w.nodes.iter_mut().find(|n| n.id == node).expect("named");
        n.since = Some(NodeSince {
            state: Some(StateSince {
                at: 1000,
                at_least: false,
                by: Some(by.into()),
                reason: Some(reason.into()),
                checked: 1120,
            }),
            unhealthy: Vec::new(),
        });
        w
    }

    fn world(
        nodes: Vec<NodeView>,
        orphans: Vec<OrphanView>,
        rejections: &[Rejection],
    ) -> Surroundings {
        // One replica of the model, on "busy", fixes a shard at 8 GPUs.
        let replica = ReplicaView {
            id: "r-1".into(),
            model: MODEL.into(),
            shards: vec![Shard {
                node: "busy".into(),
                gpus: (0..8).collect(),
                ..Default::default()
            }],
            ..Default::default()
        };
        let mut all = nodes;
        all.push(node("busy", NodeState::Ready, 0));
        Surroundings::around(
            &|_| true,
            &all,
            &orphans,
            &[replica],
            &[Explained {
                model: MODEL,
                profiles: &["tp8".to_string()],
                rejections,
            }],
        )
    }

    fn advise(w: &Surroundings, rejections: &[Rejection]) -> Vec<Vec<Fix>> {
        w.index().advise(MODEL, rejections)
    }

    #[test]
    fn an_uncordon_is_offered_only_where_the_node_would_then_take_the_profile() {
        let rejections = [
            rejection("roomy", "node is cordoned"),
            rejection("small", "needs 8 free GPUs, 2 free"),
            rejection(
                "twice",
                "anti-affinity: already runs a replica of this model",
            ),
        ];
        let w = world(
            vec![
                node("roomy", NodeState::Cordoned, 8),
                node("small", NodeState::Cordoned, 2),
                node("twice", NodeState::Draining, 8),
            ],
            vec![],
            &rejections,
        );
        let fixes = advise(&w, &rejections);
        assert!(fixes[0][0].in_reach(), "{fixes:?}");
        assert!(
            fixes[0][0].sentence().ends_with("uncordon roomy"),
            "{}",
            fixes[0][0].sentence()
        );
        assert!(!fixes[1][0].in_reach());
        assert_eq!(
            fixes[1][0].sentence(),
            "small is cordoned, and it has 2 usable GPUs of the 8 a shard needs: uncordoning \
             alone would not place tp8 here"
        );
        assert!(!fixes[2][0].in_reach());
        assert!(
            fixes[2][0].sentence().contains("llmgw also says"),
            "{}",
            fixes[2][0].sentence()
        );
        let o = Outlook::of(&fixes);
        assert_eq!((o.in_reach, o.with_lead, o.remedies.len()), (1, 2, 1));
        assert_eq!(
            o.sentence(),
            "1 of 3 rejections has a fix in reach; the best: uncordoning roomy would remove 1 of \
             3. 2 more have a lead, below."
        );
    }

    #[test]
    fn a_cordon_with_too_little_disk_behind_it_says_so() {
        let mut tight = node("tight", NodeState::Cordoned, 8);
        tight.disk_free_gb = 37;
        let rejections = [
            rejection("tight", "node is cordoned"),
            rejection("other", "insufficient disk: needs 140G, 12G free"),
        ];
        let w = world(
            vec![tight, node("other", NodeState::Ready, 8)],
            vec![],
            &rejections,
        );
        let fixes = advise(&w, &rejections);
        assert_eq!(
            fixes[0][0].sentence(),
            "tight is cordoned, and its disk has 37 of 140 GB: uncordoning alone would not \
             place tp8 here"
        );
    }

    #[test]
    fn a_deliberate_cordon_is_shown_as_held_and_never_the_best() {
        let rejections = [
            rejection("rma", "node is cordoned"),
            rejection("rma", "needs 8 free GPUs, 2 free"),
            rejection("plain", "node is cordoned"),
        ];
        let w = world(
            vec![
                node("rma", NodeState::Cordoned, 8),
                node("plain", NodeState::Cordoned, 8),
            ],
            vec![],
            &rejections,
        );
        let w = held(w, "rma", "jane", "RMA 5120 - do not uncordon");
        let fixes = advise(&w, &rejections);
        // Its reason was true when explained, but the node has room now:
        // the hold is what stands, and the page says whose.
        assert!(fixes[0][0].in_reach());
        assert!(
            fixes[0][0]
                .sentence()
                .starts_with("rma is held cordoned by jane 2 m ago: RMA 5120 - do not uncordon."),
            "{}",
            fixes[0][0].sentence()
        );
        let o = Outlook::of(&fixes);
        assert_eq!(o.remedies.last().map(|m| m.fix.node()), Some("rma"));
        assert!(
            o.sentence().contains("the best: uncordoning plain"),
            "{}",
            o.sentence()
        );

        // A drain is somebody's purpose too, journal or not.
        let drained = [rejection("emptied", "node is draining")];
        let w = world(
            vec![node("emptied", NodeState::Draining, 8)],
            vec![],
            &drained,
        );
        let fixes = advise(&w, &drained);
        assert!(fixes[0][0].in_reach() && fixes[0][0].held());
        assert!(!Outlook::of(&fixes).sentence().contains("the best"));

        // Held alone: no best at all.
        let only = &rejections[..2];
        let w = world(vec![node("rma", NodeState::Cordoned, 8)], vec![], only);
        let w = held(w, "rma", "jane", "RMA 5120");
        let o = Outlook::of(&advise(&w, only));
        assert!(!o.sentence().contains("the best"), "{}", o.sentence());
        assert!(o.sentence().contains("held node"), "{}", o.sentence());
    }

    #[test]
    fn a_collection_works_only_on_a_node_in_placement_that_it_frees_enough_on() {
        let orphan = |n: &str, gb: i64| OrphanView {
            node: n.into(),
            paths: vec!["x".into()],
            bytes: gb * GB,
        };
        let mut full = node("full", NodeState::Ready, 8);
        full.disk_free_gb = 12;
        let mut fenced = full.clone();
        fenced.id = "fenced".into();
        fenced.state = NodeState::Cordoned;
        let mut little = full.clone();
        little.id = "little".into();
        let rejections = [
            rejection("full", "insufficient disk: needs 55G, 12G free"),
            rejection("fenced", "insufficient disk: needs 55G, 12G free"),
            rejection("little", "insufficient disk: needs 55G, 12G free"),
        ];
        let w = world(
            vec![full, fenced, little],
            vec![
                orphan("full", 50),
                orphan("fenced", 50),
                orphan("little", 20),
            ],
            &rejections,
        );
        let fixes = advise(&w, &rejections);
        let collect = |i: usize| {
            fixes[i]
                .iter()
                .find(|f| matches!(f, Fix::Collect { .. }))
                .expect("collect")
        };
        assert!(collect(0).in_reach());
        assert!(
            collect(0)
                .sentence()
                .contains("it needs 43 GB more: enough")
        );
        assert!(!collect(1).in_reach(), "a cordoned node takes nothing");
        assert!(
            collect(1).sentence().contains("but it is cordoned"),
            "{}",
            collect(1).sentence()
        );
        assert!(!collect(2).in_reach());
        assert!(
            collect(2).sentence().ends_with("it needs 43 GB more"),
            "{}",
            collect(2).sentence()
        );
    }

    #[test]
    fn without_the_gpus_a_shard_needs_nothing_is_said_to_work() {
        let rejections = [Rejection {
            profile: "unknown".into(),
            ..rejection("roomy", "node is cordoned")
        }];
        let w = Surroundings::around(
            &|_| true,
            &[node("roomy", NodeState::Cordoned, 8)],
            &[],
            &[],
            &[Explained {
                model: MODEL,
                profiles: &[],
                rejections: &rejections,
            }],
        );
        let fixes = advise(&w, &rejections);
        assert!(!fixes[0][0].in_reach());
        assert!(
            fixes[0][0].sentence().contains("cannot be told"),
            "{}",
            fixes[0][0].sentence()
        );
    }

    #[test]
    fn a_reason_the_node_has_left_behind_says_so() {
        let rejections = [rejection("back", "node is cordoned")];
        let w = world(vec![node("back", NodeState::Ready, 8)], vec![], &rejections);
        let fixes = advise(&w, &rejections);
        assert_eq!(
            fixes[0],
            [Fix::NoLongerTrue {
                node: "back".into(),
                since: None
            }]
        );
        assert_eq!(fixes[0][0].sentence(), "no longer true: back is ready now");
    }

    #[test]
    fn leads_come_from_the_data() {
        let mut sick = node("sick", NodeState::Ready, 6);
        sick.unhealthy = vec!["GPU 5: Xid 79".into()];
        let mut silent = node("silent", NodeState::Ready, 8);
        silent.last_seen_ago = "5m0s".into();
        let rejections = [
            rejection("sick", "only 6 of 8 accelerators usable"),
            rejection("silent", "anything"),
            rejection("gone", "anything"),
            rejection("", "pool has no GPUs"),
        ];
        let w = world(vec![sick, silent], vec![], &rejections);
        let fixes = advise(&w, &rejections);
        assert!(matches!(fixes[0][..], [Fix::UnhealthyGpus { .. }]));
        assert!(matches!(fixes[1][..], [Fix::Unreported { .. }]));
        assert!(matches!(
            fixes[2][..],
            [Fix::Unreported {
                last_seen: None,
                ..
            }]
        ));
        assert!(fixes[3].is_empty());
    }
}
