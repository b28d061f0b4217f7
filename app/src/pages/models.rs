//! `/models`: the catalog in the CLI's columns and the four statuses in its
//! words, each pointing at what to do next.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::components::LiveTable;
use crate::server_fns::cluster::list_models;

#[component]
pub fn ModelsPage() -> impl IntoView {
    view! {
        <Title text=crate::site_map::MODELS.title />
        <h1>"Models"</h1>
        <LiveTable
            fetch=list_models
            class="data models"
            noun="models"
            one="model"
            empty="The catalog is empty: no model has been added."
        />
    }
}
