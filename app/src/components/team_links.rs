//! The links to the team's tools on a node's or a model's page, from the
//! settings' `[[links]]` (see `team_links`); nothing when there are none.

use leptos::prelude::*;

use crate::team_links::Subject;
use crate::ui_settings::UiSettings;

#[component]
pub fn TeamLinks(
    #[prop(optional)] node: Option<String>,
    #[prop(optional)] model: Option<String>,
) -> impl IntoView {
    let ui = use_context::<UiSettings>().unwrap_or_default();
    let cluster = ui.cluster.map(|c| c.id).unwrap_or_default();
    let subject = match (&node, &model) {
        (Some(node), _) => Subject::Node(node),
        (None, Some(model)) => Subject::Model(model),
        (None, None) => return None,
    };
    let links: Vec<(String, String)> = ui
        .team_links
        .iter()
        .filter_map(|t| t.href(&cluster, subject).map(|href| (t.name.clone(), href)))
        .collect();
    (!links.is_empty()).then(|| {
        view! {
            <nav class="team-links" aria-label="The team's tools">
                {links
                    .into_iter()
                    .map(|(name, href)| {
                        view! { <a href=href rel="noopener noreferrer" target="_blank">{name}</a> }
                    })
                    .collect_view()}
            </nav>
        }
    })
}
