//! `/models`: the catalog in the CLI's columns and the four statuses in its
//! words, each pointing at what to do next.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::admin_api::types::ModelView;
use crate::components::{
    FilteredTable, Live, SortHeader, SortKey, StatusBadge, TablePage, TableQuery, TableRow,
    refresh_ticker, tracked_table_query, use_table_query,
};
use crate::format::{self, ModelStatus};
use crate::server_fns::cluster::list_models;
use crate::urls;

#[component]
pub fn ModelsPage() -> impl IntoView {
    let refresh = refresh_ticker();
    let query = use_table_query();
    let models = Resource::new(
        move || (refresh.get(), query.with(TableQuery::to_query)),
        |(_, q)| list_models(q),
    );
    view! {
        <Title text="Models" />
        <h1>"Models"</h1>
        <Live resource=models render=render_models />
    }
}

fn render_models(page: TablePage<ModelView>) -> impl IntoView {
    let query = tracked_table_query();
    view! { <ModelsTable page query /> }
}

impl TableRow for ModelView {
    fn text(&self) -> String {
        let m = self;
        format!(
            "{} {} {} {} {}",
            m.name,
            ModelStatus::of(m).label(),
            m.aliases.join(" "),
            m.profiles.join(" "),
            m.fallbacks.join(" ")
        )
    }

    fn sort_key(&self, column: &str) -> SortKey {
        let m = self;
        match column {
            "serving" => SortKey::Num(-(i64::from(format::is_serving(m)))),
            "replicas" => SortKey::Num(m.ready),
            "status" => SortKey::Num(ModelStatus::of(m) as i64),
            "aliases" => SortKey::Text(m.aliases.join(",")),
            "profiles" => SortKey::Text(m.profiles.join(",")),
            "fallbacks" => SortKey::Text(m.fallbacks.join(",")),
            _ => SortKey::Text(m.name.clone()),
        }
    }

    /// `?status=` keeps the models the overview's figure counted.
    fn passes(&self, facet: &str, value: &str) -> bool {
        match facet {
            "status" => ModelStatus::of(self).slug() == value,
            _ => true,
        }
    }
}

#[component]
fn ModelsTable(page: TablePage<ModelView>, query: Memo<TableQuery>) -> impl IntoView {
    if page.total == 0 {
        return view! { <p class="empty">"The catalog is empty: no model has been added."</p> }
            .into_any();
    }
    let paging = page.paging();
    let TablePage {
        rows, shown, total, ..
    } = page;
    view! {
        <FilteredTable query shown total noun="models" one="model" paging>
            <table class="data models">
                <thead>
                    <tr>
                        <SortHeader query column="model" label="Model" />
                        <SortHeader query column="serving" label="Serving" />
                        <SortHeader query column="replicas" label="Replicas" title="ready / minimum wanted" />
                        <SortHeader query column="status" label="Status" />
                        <SortHeader query column="aliases" label="Aliases" />
                        <SortHeader query column="profiles" label="Profiles" />
                        <SortHeader query column="fallbacks" label="Fallbacks" />
                    </tr>
                </thead>
                <tbody>
                    {rows.into_iter().map(|m| view! { <ModelRow model=m /> }).collect_view()}
                </tbody>
            </table>
        </FilteredTable>
    }
    .into_any()
}

#[component]
fn ModelRow(model: ModelView) -> impl IntoView {
    let status = ModelStatus::of(&model);
    let href = urls::placement(&model.name);
    view! {
        <tr data-model=model.name.clone()>
            <th scope="row" class="id">
                <a href=href.clone()>{model.name.clone()}</a>
            </th>
            <td>{if format::is_serving(&model) { "yes" } else { "no" }}</td>
            <td class="num">
                <a href=urls::replicas_of(&model.name)>
                    {format!("{}/{}", model.ready, model.min)}
                </a>
            </td>
            <td>
                <StatusBadge status />
                {match status {
                    ModelStatus::NotPlaced => view! { " " <a class="next-step" href=href>"why?"</a> }.into_any(),
                    ModelStatus::Starting => view! { " " <span class="next-step">"wait"</span> }.into_any(),
                    _ => ().into_any(),
                }}
            </td>
            <td>{format::list_or_dash(&model.aliases)}</td>
            <td>{format::list_or_dash(&model.profiles)}</td>
            <td>{format::list_or_dash(&model.fallbacks)}</td>
        </tr>
    }
}
