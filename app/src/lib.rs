//! The llmgw console's user interface: the HTML shell, the routes, the pages,
//! and the server functions they call. Every page is rendered on the server
//! only; the few islands that keep it live (the live document, the wall's
//! clock, shortcuts, copy buttons) are the same code compiled to WASM.

// The shell renders in an async block whose type nests every view of the
// app; computing its layout goes deeper than the default limit.
#![recursion_limit = "256"]
// No unsafe code in the app, whatever an attribute below says.
#![forbid(unsafe_code)]
pub mod admin_api;
pub mod audit_record;
pub mod cluster_tag;
pub mod components;
pub mod dated;
pub mod error;
pub mod estimate;
pub mod event_lines;
pub mod events_query;
pub mod fast_hash;
pub mod figures;
pub mod fixes;
pub mod format;
pub mod gpu_strip;
pub mod heartbeat;
pub mod joins;
pub mod live;
pub mod pages;
pub mod reasons;
#[cfg(feature = "ssr")]
pub mod server;
pub mod server_fns;
pub mod site_map;
pub mod staleness;
pub mod table;
pub mod tables;
pub mod team_links;
pub mod theme;
pub mod ui_settings;
pub mod urls;
pub mod wall;

use leptos::prelude::*;
use leptos_meta::{MetaTags, Stylesheet, provide_meta_context};
use leptos_router::{
    SsrMode,
    components::{Route, Router, Routes},
    path,
};

use components::{CopyLinkButton, NotFound, Shortcuts};
use live::TabPulse;
use ui_settings::UiSettings;

/// The whole HTML document, rendered on the server only.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    #[cfg(feature = "ssr")]
    server::csp::apply_to_page();
    let settings = UiSettings::current();
    let theme = settings.theme.attribute();
    let ui = serde_json::to_string(&settings).unwrap_or_default();
    // The icon says the cluster's state from the first paint, with
    // JavaScript or without.
    let icon = settings.rendered_pulse().icon();
    view! {
        <!DOCTYPE html>
        <html lang="en" data-theme=theme>
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <meta name=ui_settings::META_NAME content=ui />
                <link id=live::markup::ICON_ID rel="icon" href=icon type="image/svg+xml" />
                // Renders nothing unless `make dev` (cargo leptos watch) runs us.
                <AutoReload options=options.clone() />
                <HydrationScripts options islands=true />
                <MetaTags />
            </head>
            <body>
                <App />
            </body>
        </html>
    }
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    let ui = UiSettings::current();
    provide_context(ui.clone());
    // Pages wait for their data on the server (`SsrMode::Async`) so that every
    // page, and every link pasted into a chat, reads fully with JavaScript off.
    view! {
        <Stylesheet id="leptos" href=format!("/{}/llmgw-console.css", ui.pkg_dir()) />
        <Router>
            <TabPulse />
            <Shortcuts />
            <Header ui=ui.clone() />
            <JournalDown error=ui.journal_error.clone() />
            <main id="main" tabindex="-1">
                <Routes fallback=NotFound>
                    <Route path=site_map::OVERVIEW.route() view=Home ssr=SsrMode::Async />
                    <Route path=site_map::NODES.route() view=pages::NodesPage ssr=SsrMode::Async />
                    <Route path=path!("/nodes/:id") view=pages::NodePage ssr=SsrMode::Async />
                    <Route path=site_map::MODELS.route() view=pages::ModelsPage ssr=SsrMode::Async />
                    <Route path=path!("/models/*rest") view=pages::PlacementPage ssr=SsrMode::Async />
                    <Route path=site_map::REPLICAS.route() view=pages::ReplicasPage ssr=SsrMode::Async />
                    <Route path=site_map::WEIGHTS.route() view=pages::WeightsPage ssr=SsrMode::Async />
                    <Route path=site_map::EVENTS.route() view=pages::EventsPage ssr=SsrMode::Async />
                    <Route path=site_map::AUDIT.route() view=pages::AuditPage ssr=SsrMode::Async />
                    <Route path=site_map::JUMP.route() view=pages::JumpPage ssr=SsrMode::Async />
                    <Route path=path!("/wall") view=pages::WallPage ssr=SsrMode::Async />
                    <Route path=site_map::WALL_SETUP.route() view=pages::WallSetupPage ssr=SsrMode::Async />
                </Routes>
            </main>
            <live::LiveDocument />
        </Router>
    }
}

/// `/`: a cluster's overview; with several clusters and none named, the
/// overview of every cluster.
#[component]
fn Home() -> impl IntoView {
    let ui = UiSettings::current();
    if ui.cluster.is_none() && ui.clusters.len() > 1 {
        view! { <pages::FleetPage /> }.into_any()
    } else {
        view! { <pages::OverviewPage /> }.into_any()
    }
}

/// Said on every page while the journal's database does not answer: the
/// live views go on, and "since when" and the events are not being kept.
#[component]
fn JournalDown(error: Option<String>) -> impl IntoView {
    error.map(|error| {
        view! {
            <p class="warn journal-down" role="status">
                "The journal is not being written: its database does not answer ("
                {error}
                "). The live views are unaffected; what happens now waits in memory \
                 and is written when the database answers again."
            </p>
        }
    })
}

/// The navigation, on every page but the wall screen: nothing there is
/// meant to be clicked. Its links are the page's cluster's; on the overview
/// of several clusters they go to the first one's.
#[component]
fn Header(ui: UiSettings) -> impl IntoView {
    let location = leptos_router::hooks::use_location();
    let on_wall = move || location.pathname.with(|p| p == "/wall");
    let theme = ui.theme;
    // The switch comes back to this view.
    let switch = move || theme.switch_href(&urls::here());
    move || {
        (!on_wall()).then(|| {
            let ui = ui.clone();
            let path = location.pathname.get();
            let here = urls::path_and_query(&path, &location.search.get());
            let in_one = ui.cluster.is_some();
            view! {
            // The first thing Tab reaches: past the header's dozen links.
            // Not on the wall, which has no header and no control.
            <a class="skip-link" href="#main">"Skip to the page"</a>
            <header class="top">
                <a class="brand" href="/">"llmgw console"</a>
                {ui.cluster.clone().map(|c| view! { <components::ClusterBadge tag=c /> })}
                {if in_one || ui.clusters.len() < 2 {
                    view! {
                        <nav aria-label="Sections">
                            {site_map::DESTINATIONS
                                .iter()
                                .map(|d| {
                                    let current = in_one && d.is_within(&path);
                                    view! {
                                        <a href=urls::scoped(d.path) aria-current=current.then_some("page")>
                                            {d.label}
                                        </a>
                                    }
                                })
                                .collect_view()}
                        </nav>
                    }
                    .into_any()
                } else {
                    // A page about every cluster: each section is a
                    // cluster's, so the way in is a cluster.
                    view! {
                        <nav aria-label="Clusters">
                            {ui.clusters
                                .iter()
                                .map(|c| view! { <a href=format!("{}/", c.base())>{c.label.clone()}</a> })
                                .collect_view()}
                        </nav>
                    }
                    .into_any()
                }}
                {ui.cluster.clone().map(|current| view! {
                    <components::ClusterSwitch
                        current
                        clusters=ui.clusters.clone()
                        here=here.clone()
                        admin_api=ui.admin_api.clone()
                    />
                })}
                // The jump-to box (Ctrl+K): a GET form, so it works
                // without JavaScript too.
                <form class="jump" method="get" action=urls::scoped(site_map::JUMP.path) role="search">
                    <input
                        type="search"
                        name="q"
                        placeholder="Jump to… (Ctrl+K)"
                        aria-label="Jump to a node, model or replica"
                        maxlength=server_fns::jump::QUERY_CHARS
                    />
                </form>
                // Cut to fit; the whole address is its title.
                <span class="upstream" title=format!("The llmgw admin API this page reads: {}", ui.admin_api)>
                    {in_one.then(|| ui.admin_api.clone())}
                </span>
                <span class="actor" title="Who llmgw records beside a change you make here">
                    {if ui.read_only && in_one { "Read-only · ".to_string() } else { String::new() }}
                    {ui.actor.clone()}
                </span>
                // A full load (rel=external): the server renders the new theme.
                <a
                    class="theme"
                    rel="external"
                    href=switch
                    title=format!("Switch to the {} theme", theme.next().word())
                >
                    "Theme: "
                    {theme.word()}
                </a>
                <CopyLinkButton />
            </header>
            }
        })
    }
}

/// Readies the reactive system for the page's islands, which the script
/// Leptos writes into the page then hydrates one by one; the rest of the
/// page is the server's HTML and stays as it is.
#[cfg(feature = "hydrate")]
pub fn hydrate_page() {
    leptos::mount::hydrate_islands();
}
