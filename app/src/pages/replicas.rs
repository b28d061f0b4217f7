//! `/replicas` (`?model=` for one model's): every column of the CLI, with
//! errors on the row they belong to.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::components::LiveTable;
use crate::server_fns::cluster::list_replicas;
use crate::urls;

#[component]
pub fn ReplicasPage() -> impl IntoView {
    let params = use_query_map();
    let model = Memo::new(move |_| params.with(|p| p.get("model").unwrap_or_default()));
    view! {
        <Title text=crate::site_map::REPLICAS.title />
        <h1>
            "Replicas"
            {move || {
                let m = model.get();
                (!m.is_empty())
                    .then(|| view! { " of " <a href=urls::placement(&m)>{m.clone()}</a> })
            }}
        </h1>
        <LiveTable
            fetch=list_replicas
            class="data replicas"
            noun="replicas"
            one="replica"
            empty="No replicas are running."
        />
    }
}
