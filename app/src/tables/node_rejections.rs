//! The rejections on one node's page: each rejection that names the node,
//! from the models short of their count, and what would change it.

use leptos::prelude::*;

use crate::admin_api::types::Rejection;
use crate::components::FixHints;
use crate::fixes::{Fix, Index};
use crate::format;
use crate::joins::NodeRejection;
use crate::table::{Column, SortKey, TableRow};
use crate::urls;

/// A rejection that names the node, and what would change it.
#[derive(Clone, Debug, PartialEq)]
pub struct RejectionHere {
    pub found: NodeRejection,
    pub fixes: Vec<Fix>,
}

impl RejectionHere {
    /// Each rejection with its fixes, worked out model by model: a fix is
    /// judged over every rejection of the node for the same profile.
    pub fn advised(found: Vec<NodeRejection>, ix: &Index<'_>) -> Vec<Self> {
        let mut fixes: Vec<Vec<Fix>> = vec![Vec::new(); found.len()];
        let mut models: Vec<&str> = found.iter().map(|f| f.model.as_str()).collect();
        models.sort_unstable();
        models.dedup();
        for model in models {
            let at: Vec<usize> = (0..found.len())
                .filter(|i| found[*i].model == model)
                .collect();
            let theirs: Vec<Rejection> = at.iter().map(|i| found[*i].rejection.clone()).collect();
            for (i, f) in at.into_iter().zip(ix.advise(model, &theirs)) {
                fixes[i] = f;
            }
        }
        found
            .into_iter()
            .zip(fixes)
            .map(|(found, fixes)| Self { found, fixes })
            .collect()
    }
}

impl TableRow for RejectionHere {
    type Dates = crate::dated::Undated;
    const KEY_ATTR: &'static str = "data-rejection";
    const COLUMNS: &'static [Column<Self>] = &[
        Column::<Self>::new("model", "Model", |r| {
            view! { <a href=urls::placement(&r.found.model)>{r.found.model.clone()}</a> }.into_any()
        })
        .sort(|r| SortKey::Text(r.found.model.clone()))
        .text(|r| r.found.model.clone()),
        Column::<Self>::new("profile", "Profile", |r| {
            r.found.rejection.profile.clone().into_any()
        })
        .sort(|r| SortKey::Text(r.found.rejection.profile.clone()))
        .text(|r| r.found.rejection.profile.clone()),
        Column::<Self>::new("pool", "Pool", |r| {
            format::or_dash(&r.found.rejection.pool).into_any()
        })
        .sort(|r| SortKey::Text(r.found.rejection.pool.clone()))
        .text(|r| r.found.rejection.pool.clone()),
        Column::<Self>::new("reason", "Reason", |r| {
            r.found.rejection.reason.clone().into_any()
        })
        .sort(|r| SortKey::Text(r.found.rejection.reason.clone()))
        .text(|r| r.found.rejection.reason.clone()),
        Column::<Self>::new("fixes", "What would change it", |r| {
            view! { <FixHints fixes=r.fixes.clone() /> }.into_any()
        })
        .class("fixes-cell"),
    ];
    const ROW_HEADER: Option<usize> = None;

    fn key(&self) -> String {
        let r = &self.found.rejection;
        format!("{} {} {} {}", self.found.model, r.profile, r.pool, r.reason)
    }
}
