//! `/wall/setup`: builds the link a kiosk browser opens. A plain form that
//! asks for nothing but the panels and the turn length, so it works without
//! JavaScript, and the link it gives is the whole configuration.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::wall::{Panel, WallLayout};

#[component]
pub fn WallSetupPage() -> impl IntoView {
    let query = use_query_map();
    let layout = Memo::new(move |_| {
        query.with(|q| {
            let panels = q.get_all("panel").map(|p| p.join(","));
            WallLayout::from_query(panels.as_deref(), q.get("cycle").as_deref())
        })
    });
    let ui = crate::ui_settings::UiSettings::current();
    let current = ui.cluster.clone().map(|c| c.id).unwrap_or_default();
    let clusters = ui.clusters.clone();
    // The clusters the wall shows: this page's own unless others are
    // ticked; several make a wall of several, side by side.
    // Only ids of clusters there are: anything else in the address would be
    // written into the link.
    let known: Vec<String> = ui.clusters.iter().map(|c| c.id.clone()).collect();
    let chosen = Memo::new(move |_| {
        query.with(|q| {
            let asked = q.get_all("cluster").unwrap_or_default();
            known
                .iter()
                .filter(|id| asked.contains(id))
                .cloned()
                .collect::<Vec<String>>()
        })
    });
    move || {
        let layout = layout.get();
        let mut chosen = chosen.get();
        if chosen.is_empty() {
            chosen.push(current.clone());
        }
        let href = if chosen.len() > 1 || chosen[0] != current {
            let own = layout.href();
            let layout_query = own.split_once('?').map(|(_, q)| q).unwrap_or_default();
            format!("/wall?clusters={}&{layout_query}", chosen.join(","))
        } else {
            layout.href()
        };
        let choice = (clusters.len() > 1).then(|| {
            view! {
                <fieldset>
                    <legend>"Clusters"</legend>
                    {clusters
                        .iter()
                        .map(|c| {
                            let checked = chosen.contains(&c.id);
                            view! {
                                <label>
                                    <input type="checkbox" name="cluster" value=c.id.clone() checked=checked />
                                    " " {c.label.clone()}
                                </label>
                            }
                        })
                        .collect_view()}
                </fieldset>
            }
        });
        let cycle = layout
            .cycle_seconds
            .map(|c| c.to_string())
            .unwrap_or_default();
        view! {
            <Title text=crate::site_map::WALL_SETUP.title />
            <h1>"Wall screen"</h1>
            <p class="lede">
                "A read-only screen for a room: large type, dark, nothing to click. Choose what it "
                "shows; the link below is the whole set-up, so a kiosk browser opens it and "
                "keeps it for days. It survives reloads, admin API outages and console upgrades."
            </p>
            <form class="wall-setup" method="get" action=crate::urls::scoped("/wall/setup")>
                <fieldset>
                    <legend>"Panels"</legend>
                    {Panel::ALL
                        .into_iter()
                        .map(|p| {
                            let checked = layout.panels.contains(&p);
                            view! {
                                <label>
                                    <input type="checkbox" name="panel" value=p.slug() checked=checked />
                                    " " {p.title()}
                                </label>
                            }
                        })
                        .collect_view()}
                </fieldset>
                {choice}
                <fieldset>
                    <legend>"Taking turns"</legend>
                    <label>
                        "Show one panel at a time, for "
                        <input type="number" name="cycle" min=WallLayout::MIN_CYCLE value=cycle aria-label="Seconds per panel" />
                        " seconds each (empty: all at once)"
                    </label>
                </fieldset>
                <button type="submit">"Make the link"</button>
            </form>
            <p>"The wall's link: " <a class="link wall-link" href=href.clone()>{href.clone()}</a></p>
        }
    }
}
