//! A cluster's figures, worked out once for each set of lists read rather
//! than once for each viewer of the overview: 20,000 nodes take a few
//! milliseconds to count, and a hundred open overviews would pay it a
//! hundred times a period.

use std::sync::{Arc, Mutex, PoisonError, Weak};

use crate::admin_api::types::{ModelView, NodeView, OrphanView, ReplicaView};
use crate::figures::ClusterFigures;

#[derive(Default)]
pub struct FiguresMemo(Mutex<Option<Memo>>);

/// The lists the figures were counted from. Weak, so that an old list is
/// not kept alive for them; and while a `Weak` lives its allocation is not
/// reused, so the same address is the same list.
struct Memo {
    nodes: Weak<Vec<NodeView>>,
    models: Weak<Vec<ModelView>>,
    replicas: Weak<Vec<ReplicaView>>,
    orphans: Weak<Vec<OrphanView>>,
    figures: Arc<ClusterFigures>,
}

fn same<T>(counted: &Weak<T>, now: &Arc<T>) -> bool {
    std::ptr::eq(counted.as_ptr(), Arc::as_ptr(now))
}

impl FiguresMemo {
    /// The figures of these lists: those counted last when they are the
    /// same lists, counted now otherwise. Counted under the lock, so that
    /// viewers arriving together count once.
    pub fn of(
        &self,
        nodes: &Arc<Vec<NodeView>>,
        models: &Arc<Vec<ModelView>>,
        replicas: &Arc<Vec<ReplicaView>>,
        orphans: &Arc<Vec<OrphanView>>,
    ) -> Arc<ClusterFigures> {
        let mut memo = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(m) = memo.as_ref().filter(|m| {
            same(&m.nodes, nodes)
                && same(&m.models, models)
                && same(&m.replicas, replicas)
                && same(&m.orphans, orphans)
        }) {
            return m.figures.clone();
        }
        let figures = Arc::new(ClusterFigures::of(nodes, models, replicas, orphans));
        *memo = Some(Memo {
            nodes: Arc::downgrade(nodes),
            models: Arc::downgrade(models),
            replicas: Arc::downgrade(replicas),
            orphans: Arc::downgrade(orphans),
            figures: figures.clone(),
        });
        figures
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_lists_are_counted_once_and_a_new_list_again() {
        let memo = FiguresMemo::default();
        let nodes = Arc::new(vec![NodeView::default()]);
        let (models, replicas, orphans) = (Arc::default(), Arc::default(), Arc::default());
        let first = memo.of(&nodes, &models, &replicas, &orphans);
        assert!(Arc::ptr_eq(
            &first,
            &memo.of(&nodes, &models, &replicas, &orphans)
        ));
        assert_eq!(first.nodes.nodes, 1);

        // The same content read again is a new list, and counted anew.
        let again = Arc::new(vec![NodeView::default(), NodeView::default()]);
        drop(nodes);
        let second = memo.of(&again, &models, &replicas, &orphans);
        assert!(!Arc::ptr_eq(&first, &second));
        assert_eq!(second.nodes.nodes, 2);
    }
}
