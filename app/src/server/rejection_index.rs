//! Every explanation's rejections, by the node they name. A node's page
//! shows the rejections that name it; reading them from each model's
//! explanation per view cost models × rejections per viewer. The index is
//! built once per refresh period from the shared explanations, and a view
//! then costs one lookup.

use std::collections::HashMap;
use std::sync::Arc;

use crate::admin_api::AdminApiError;
use crate::admin_api::types::ExplainView;
use crate::joins::NodeRejection;

#[derive(Debug, Default)]
pub struct RejectionIndex {
    by_node: HashMap<String, Vec<NodeRejection>>,
    /// Models whose explanation could not be read, with why: rejections
    /// that may be missing from every node's list.
    unexplained: Vec<(String, String)>,
}

impl RejectionIndex {
    /// From each catalog model's explanation, in catalog order.
    pub fn build(explains: Vec<(String, Result<Arc<ExplainView>, AdminApiError>)>) -> Self {
        let mut index = Self::default();
        for (model, explain) in explains {
            let explain = match explain {
                Ok(explain) => explain,
                // A model removed between the two calls has nothing to say.
                Err(AdminApiError::Status { code: 404, .. }) => continue,
                Err(e) => {
                    index.unexplained.push((model, e.to_string()));
                    continue;
                }
            };
            for rejection in &explain.rejections {
                index
                    .by_node
                    .entry(rejection.node.clone())
                    .or_default()
                    .push(NodeRejection {
                        model: model.clone(),
                        rejection: rejection.clone(),
                    });
            }
        }
        index
    }

    /// The rejections that name `node`, in catalog order.
    pub fn of(&self, node: &str) -> &[NodeRejection] {
        self.by_node.get(node).map_or(&[], Vec::as_slice)
    }

    pub fn unexplained(&self) -> &[(String, String)] {
        &self.unexplained
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admin_api::types::Rejection;

    fn explain(nodes: &[&str]) -> Result<Arc<ExplainView>, AdminApiError> {
        Ok(Arc::new(ExplainView {
            rejections: nodes
                .iter()
                .map(|n| Rejection {
                    node: n.to_string(),
                    ..Rejection::default()
                })
                .collect(),
            ..ExplainView::default()
        }))
    }

    #[test]
    fn rejections_are_found_by_node_and_failures_are_kept() {
        let index = RejectionIndex::build(vec![
            ("a".into(), explain(&["n1", "n2"])),
            (
                "gone".into(),
                Err(AdminApiError::Status {
                    code: 404,
                    status: "Not Found".into(),
                    message: String::new(),
                }),
            ),
            ("b".into(), explain(&["n2"])),
            (
                "broken".into(),
                Err(AdminApiError::Status {
                    code: 500,
                    status: "Internal Server Error".into(),
                    message: "boom".into(),
                }),
            ),
        ]);
        let models =
            |node| -> Vec<String> { index.of(node).iter().map(|r| r.model.clone()).collect() };
        assert_eq!(models("n1"), ["a"]);
        assert_eq!(models("n2"), ["a", "b"]);
        assert!(index.of("n3").is_empty());
        assert_eq!(index.unexplained().len(), 1);
        assert_eq!(index.unexplained()[0].0, "broken");
    }
}
