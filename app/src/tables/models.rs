//! The catalog's table: the CLI's columns, the four statuses in its words,
//! and where to go next from each.

use leptos::prelude::*;

use crate::admin_api::types::ModelView;
use crate::components::{SinceNote, StatusBadge};
use crate::format::{self, ModelStatus};
use crate::table::{
    Cell, Column, Exported, ExportedTable, FacetChoice, Field, Row, SortKey, TableRow,
};
use crate::urls;

impl TableRow for ModelView {
    type Dates = crate::dated::ModelSince;
    const KEY_ATTR: &'static str = "data-model";
    const EXPORTED_AS: Option<ExportedTable> = Some(ExportedTable::Models);
    const COLUMNS: &'static [Column<Self>] = &[
        Column::<Self>::new("model", "Model", |m| {
            view! { <a href=urls::placement(&m.name)>{m.name.clone()}</a> }.into_any()
        })
        .class("id")
        .sort(|m| SortKey::Text(m.name.clone()))
        .text(|m| m.name.clone()),
        Column::<Self>::new("serving", "Serving", |m| {
            (if format::is_serving(m) { "yes" } else { "no" }).into_any()
        })
        .sort(|m| SortKey::Num(-(i64::from(format::is_serving(m))))),
        Column::<Self>::new("replicas", "Replicas", |m| {
            view! {
                <a href=urls::replicas_of(&m.name)>{format!("{}/{}", m.ready, m.min)}</a>
            }
            .into_any()
        })
        .title("ready / minimum wanted")
        .class("num")
        .sort(|m| SortKey::Num(m.ready)),
        Column::<Self>::new("status", "Status", status_cell)
            .sort(|m| SortKey::Num(ModelStatus::of(m) as i64))
            .text(|m| ModelStatus::of(m).label().to_string()),
        Column::<Self>::new("aliases", "Aliases", |m| {
            format::list_or_dash(&m.aliases).into_any()
        })
        .sort(|m| SortKey::Text(m.aliases.join(",")))
        .text(|m| m.aliases.join(" ")),
        Column::<Self>::new("profiles", "Profiles", |m| {
            format::list_or_dash(&m.profiles).into_any()
        })
        .sort(|m| SortKey::Text(m.profiles.join(",")))
        .text(|m| m.profiles.join(" ")),
        Column::<Self>::new("fallbacks", "Fallbacks", |m| {
            format::list_or_dash(&m.fallbacks).into_any()
        })
        .sort(|m| SortKey::Text(m.fallbacks.join(",")))
        .text(|m| m.fallbacks.join(" ")),
    ];

    fn key(&self) -> String {
        self.name.clone()
    }

    /// `?status=` keeps the models the overview's figure counted.
    fn passes(&self, facet: &str, value: &str) -> bool {
        match facet {
            "status" => ModelStatus::of(self).slug() == value,
            _ => true,
        }
    }

    fn facets() -> Vec<FacetChoice> {
        vec![FacetChoice {
            param: "status",
            label: "Status",
            values: ModelStatus::ALL
                .iter()
                .map(|s| (s.slug(), s.label().to_string()))
                .collect(),
        }]
    }
}

/// The status, and where to go next when it is not "ready". A model whose
/// replica reports an error is failing, its error first: never "wait"
/// beside a replica that restarts.
fn status_cell(m: &Row<ModelView>) -> AnyView {
    let (since, failing) = m
        .since
        .clone()
        .map(|s| (s.status, s.failing))
        .unwrap_or_default();
    if let Some(error) = failing {
        return view! {
            <span class="badge bad failing">"failing"</span>
            " "
            <span class="error">{error}</span>
            " "
            <a class="next-step" href=urls::replicas_of(&m.name)>"replicas"</a>
            <SinceNote since />
        }
        .into_any();
    }
    let status = ModelStatus::of(m);
    let next = match status {
        ModelStatus::NotPlaced => Some(
            view! {
                " " <a class="next-step" href=urls::placement(&m.name)>"why?"</a>
            }
            .into_any(),
        ),
        ModelStatus::Starting => {
            Some(view! { " " <span class="next-step">"wait"</span> }.into_any())
        }
        _ => None,
    };
    view! { <StatusBadge status />{next}<SinceNote since /> }.into_any()
}

impl Exported for ModelView {
    const FIELDS: &'static [Field<Self>] = &[
        Field::new("model", |m| Cell::text(&m.name)),
        Field::new("status", |m| Cell::Text(ModelStatus::of(m).label().into())),
        Field::new("serving", |m| Cell::Bool(format::is_serving(m))),
        Field::new("ready", |m| Cell::Int(m.ready)),
        Field::new("min", |m| Cell::Int(m.min)),
        Field::new("total", |m| Cell::Int(m.total)),
        Field::new("aliases", |m| Cell::list(&m.aliases)),
        Field::new("profiles", |m| Cell::list(&m.profiles)),
        Field::new("fallbacks", |m| Cell::list(&m.fallbacks)),
    ];
}
