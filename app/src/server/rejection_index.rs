//! The rejections that name each node, for the node pages. Explanations are
//! large (a model that cannot be placed names every node that turned it
//! down), so the index keeps each rejection as five numbers into one table
//! of names, and drops the decoded answer as soon as it is read: 20 bytes a
//! rejection, where the decoded one cost about a hundred.
//!
//! Only the models that are not fully placed are worth asking about (see
//! [`worth_explaining`]); a model at its wanted count has nothing on a node
//! page that anyone would act on.

use std::collections::{HashMap, HashSet};

use crate::admin_api::AdminApiError;
use crate::admin_api::types::{ExplainView, ModelView, Rejection};
use crate::fast_hash::FastSet;
use crate::joins::NodeRejection;

use super::interned::Interned;

/// Whether a model's rejections belong on the node pages: it is below its
/// minimum, or has replicas wanted that are not ready. A model with
/// nothing wanted and nothing running is placed as it is.
pub fn worth_explaining(model: &ModelView) -> bool {
    !(model.ready >= model.min && model.total == model.ready)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    node: u32,
    model: u32,
    profile: u32,
    pool: u32,
    reason: u32,
}

/// How far a gathering of explanations has come.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Gathering {
    pub read: usize,
    pub of: usize,
}

#[derive(Clone, Debug, Default)]
pub struct RejectionIndex {
    names: Interned,
    /// By node, then in catalog order.
    entries: Vec<Entry>,
    /// Models whose explanation could not be read, with why: rejections
    /// that may be missing from every node's list.
    unexplained: Vec<(String, String)>,
    /// Set while explanations are still being read: what the index holds
    /// is then only part of it.
    gathering: Option<Gathering>,
}

impl RejectionIndex {
    /// The rejections that name `node`, in catalog order.
    pub fn of(&self, node: &str) -> Vec<NodeRejection> {
        let Some(node) = self.names.find(node) else {
            return Vec::new();
        };
        let start = self.entries.partition_point(|e| e.node < node);
        self.entries[start..]
            .iter()
            .take_while(|e| e.node == node)
            .map(|e| NodeRejection {
                model: self.names.name(e.model).to_string(),
                rejection: Rejection {
                    profile: self.names.name(e.profile).to_string(),
                    pool: self.names.name(e.pool).to_string(),
                    node: self.names.name(e.node).to_string(),
                    reason: self.names.name(e.reason).to_string(),
                },
            })
            .collect()
    }

    /// Each kind of rejection of each of `models` (one of each profile,
    /// pool and reason, with the first node that gave it), in one pass:
    /// what their shards' needs are learnt from. A model that turned down
    /// thousands of nodes for a few reasons gives a few rows, not
    /// thousands.
    pub fn of_models(&self, models: &[&str]) -> Vec<(String, Vec<Rejection>)> {
        let ids: Vec<u32> = models.iter().filter_map(|m| self.names.find(m)).collect();
        let mut found: Vec<(String, Vec<Rejection>)> = ids
            .iter()
            .map(|id| (self.names.name(*id).to_string(), Vec::new()))
            .collect();
        // Where each asked model's rows go, by name number: a node named by
        // hundreds of models must not search them for each of the hundred
        // thousand rejections at 20,000 nodes.
        let mut slot: Vec<u32> = vec![u32::MAX; self.names.len()];
        for (i, id) in ids.iter().enumerate() {
            slot[*id as usize] = i as u32;
        }
        let mut seen: FastSet<(u32, u32, u32, u32, bool)> = FastSet::default();
        for e in &self.entries {
            let i = slot[e.model as usize] as usize;
            if i != u32::MAX as usize
                && seen.insert((
                    e.model,
                    e.profile,
                    e.pool,
                    e.reason,
                    !self.names.name(e.node).is_empty(),
                ))
            {
                found[i].1.push(Rejection {
                    profile: self.names.name(e.profile).to_string(),
                    pool: self.names.name(e.pool).to_string(),
                    node: self.names.name(e.node).to_string(),
                    reason: self.names.name(e.reason).to_string(),
                });
            }
        }
        found
    }

    pub fn unexplained(&self) -> &[(String, String)] {
        &self.unexplained
    }

    pub fn gathering(&self) -> Option<Gathering> {
        self.gathering
    }

    /// The same rejections, said to be still gathering (a round has just
    /// started) or no longer (a round stopped halfway, and no page should
    /// wait for the rest).
    pub fn with_gathering(&self, gathering: Option<Gathering>) -> Self {
        Self {
            gathering,
            ..self.clone()
        }
    }

    /// Whether this index is what carrying `keep` over from it would make:
    /// every model it holds is in `keep`, and no failure is waiting to be
    /// asked again.
    pub fn holds_only(&self, keep: &HashSet<String>) -> bool {
        if !self.unexplained.is_empty() {
            return false;
        }
        let mut held = vec![false; self.names.len()];
        for e in &self.entries {
            held[e.model as usize] = true;
        }
        held.iter()
            .enumerate()
            .filter(|(_, h)| **h)
            .all(|(id, _)| keep.contains(self.names.name(id as u32)))
    }

    /// Every rejection held, for the memory it costs.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// An index being put together, from the last one's rejections of models
/// that did not move and the explanations read again.
#[derive(Debug, Default)]
pub struct IndexBuilder {
    names: Interned,
    entries: Vec<Entry>,
    unexplained: Vec<(String, String)>,
}

impl IndexBuilder {
    /// Keeps `from`'s rejections of the models `keep` says.
    pub fn carry(&mut self, from: &RejectionIndex, keep: impl Fn(&str) -> bool) {
        // Each of `from`'s names is judged and looked up once, not once for
        // every rejection that repeats it: a round carries over a hundred
        // thousand of them at 20,000 nodes.
        let mut kept: Vec<Option<bool>> = vec![None; from.names.len()];
        let mut ids: Vec<Option<u32>> = vec![None; from.names.len()];
        for e in &from.entries {
            let keeps =
                *kept[e.model as usize].get_or_insert_with(|| keep(from.names.name(e.model)));
            if keeps {
                let mut id = |n: u32| {
                    *ids[n as usize].get_or_insert_with(|| self.names.id(from.names.name(n)))
                };
                let entry = Entry {
                    node: id(e.node),
                    model: id(e.model),
                    profile: id(e.profile),
                    pool: id(e.pool),
                    reason: id(e.reason),
                };
                self.entries.push(entry);
            }
        }
    }

    /// Indexes one model's explanation, which is dropped here.
    pub fn add(&mut self, model: &str, explain: Result<ExplainView, AdminApiError>) {
        let explain = match explain {
            Ok(explain) => explain,
            // A model removed between the two calls has nothing to say.
            Err(AdminApiError::Status { code: 404, .. }) => return,
            Err(e) => {
                self.unexplained.push((model.to_string(), e.to_string()));
                return;
            }
        };
        if explain.rejections.is_empty() {
            return;
        }
        let model = self.names.id(model);
        for r in explain.rejections {
            let entry = Entry {
                node: self.names.id(&r.node),
                model,
                profile: self.names.id(&r.profile),
                pool: self.names.id(&r.pool),
                reason: self.names.id(&r.reason),
            };
            self.entries.push(entry);
        }
    }

    /// The index as it stands, ordered by node and then as `catalog` lists
    /// the models; `gathering` while more is to come. Every name the builder
    /// holds is one of its rejections', so the table is shared as it is.
    pub fn snapshot(&self, catalog: &[ModelView], gathering: Option<Gathering>) -> RejectionIndex {
        let position: HashMap<&str, usize> = catalog
            .iter()
            .enumerate()
            .map(|(i, m)| (m.name.as_str(), i))
            .collect();
        // By name number, so that sorting looks up no name.
        let mut order: Vec<Option<usize>> = vec![None; self.names.len()];
        for e in &self.entries {
            order[e.model as usize].get_or_insert_with(|| {
                position
                    .get(self.names.name(e.model))
                    .copied()
                    .unwrap_or(usize::MAX)
            });
        }
        let mut entries = self.entries.clone();
        entries.sort_by_key(|e| (e.node, order[e.model as usize]));
        let mut names = self.names.clone();
        names.shrink();
        RejectionIndex {
            names,
            entries,
            unexplained: self.unexplained.clone(),
            gathering,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn explain(nodes: &[&str]) -> Result<ExplainView, AdminApiError> {
        Ok(ExplainView {
            rejections: nodes
                .iter()
                .map(|n| Rejection {
                    node: n.to_string(),
                    reason: format!("full on {n}"),
                    ..Rejection::default()
                })
                .collect(),
            ..ExplainView::default()
        })
    }

    fn model(name: &str) -> ModelView {
        ModelView {
            name: name.into(),
            ..ModelView::default()
        }
    }

    fn failure(code: u16) -> Result<ExplainView, AdminApiError> {
        Err(AdminApiError::Status {
            code,
            status: String::new(),
            message: "boom".into(),
        })
    }

    #[test]
    fn rejections_are_found_by_node_in_catalog_order_and_failures_are_kept() {
        let catalog = [model("a"), model("gone"), model("b"), model("broken")];
        let mut builder = IndexBuilder::default();
        builder.add("b", explain(&["n2"]));
        builder.add("gone", failure(404));
        builder.add("a", explain(&["n1", "n2"]));
        builder.add("broken", failure(500));
        let index = builder.snapshot(&catalog, None);
        let models =
            |node| -> Vec<String> { index.of(node).iter().map(|r| r.model.clone()).collect() };
        assert_eq!(models("n1"), ["a"]);
        assert_eq!(models("n2"), ["a", "b"]);
        assert!(index.of("n3").is_empty());
        assert_eq!(index.of("n2")[1].rejection.reason, "full on n2");
        assert_eq!(index.of("n2")[1].rejection.node, "n2");
        assert_eq!(index.unexplained().len(), 1);
        assert_eq!(index.unexplained()[0].0, "broken");
        assert_eq!(index.len(), 3);
    }

    #[test]
    fn what_is_carried_reads_as_it_did_and_the_rest_is_let_go() {
        let catalog = [model("a"), model("b")];
        let mut first = IndexBuilder::default();
        first.add("a", explain(&["n1"]));
        first.add("b", explain(&["n1", "n2"]));
        let before = first.snapshot(&catalog, None);
        let mut next = IndexBuilder::default();
        next.carry(&before, |m| m == "a");
        let partial = next.snapshot(&catalog, Some(Gathering { read: 0, of: 1 }));
        assert_eq!(partial.of("n1"), before.of("n1")[..1]);
        assert!(partial.of("n2").is_empty());
        assert_eq!(partial.gathering(), Some(Gathering { read: 0, of: 1 }));
        next.add("b", explain(&["n2"]));
        let after = next.snapshot(&catalog, None);
        assert_eq!(after.of("n2")[0].model, "b");
        assert_eq!(after.of("n1").len(), 1);
    }

    #[test]
    fn an_index_holds_only_what_a_keep_set_names_when_nothing_else_is_in_it() {
        let catalog = [model("a"), model("b"), model("broken")];
        let keep =
            |names: &[&str]| -> HashSet<String> { names.iter().map(|n| n.to_string()).collect() };
        let mut builder = IndexBuilder::default();
        builder.add("a", explain(&["n1", "n2"]));
        builder.add("b", explain(&["n2"]));
        let index = builder.snapshot(&catalog, None);
        assert!(index.holds_only(&keep(&["a", "b"])));
        assert!(index.holds_only(&keep(&["a", "b", "placed-now"])));
        assert!(!index.holds_only(&keep(&["a"])), "b would be let go");
        builder.add("broken", failure(500));
        let failed = builder.snapshot(&catalog, None);
        assert!(
            !failed.holds_only(&keep(&["a", "b", "broken"])),
            "a failure is asked again"
        );
        assert!(RejectionIndex::default().holds_only(&keep(&[])));
    }

    #[test]
    fn only_models_short_of_what_they_want_are_worth_explaining() {
        let m = |ready, min, total| ModelView {
            ready,
            min,
            total,
            ..ModelView::default()
        };
        assert!(!worth_explaining(&m(2, 2, 2)), "placed at its count");
        assert!(!worth_explaining(&m(3, 2, 3)), "above its minimum");
        assert!(!worth_explaining(&m(0, 0, 0)), "stopped");
        assert!(worth_explaining(&m(0, 1, 0)), "not placed");
        assert!(worth_explaining(&m(1, 2, 1)), "below its minimum");
        assert!(worth_explaining(&m(2, 2, 3)), "a replica wanted, not ready");
    }
}
