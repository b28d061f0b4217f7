//! Every page as a lazy route: its code is a WASM chunk of its own, fetched
//! when the page is first visited (`cargo leptos build --split`), so that a
//! first load carries the shell and one page rather than all of them. The
//! server renders the page the same way either way.

use leptos::prelude::*;
use leptos_router::{LazyRoute, lazy_route};

use super::*;

/// `Route` for a page component: a type whose lazily loaded view is the
/// page. There is no data to start loading before the code arrives: each
/// page reads its own through its resources.
macro_rules! lazy_page {
    ($route:ident, $page:ident) => {
        pub struct $route;

        #[lazy_route]
        impl LazyRoute for $route {
            fn data() -> Self {
                $route
            }

            fn view(_this: Self) -> AnyView {
                view! { <$page /> }.into_any()
            }
        }
    };
}

lazy_page!(OverviewRoute, OverviewPage);
lazy_page!(NodesRoute, NodesPage);
lazy_page!(NodeRoute, NodePage);
lazy_page!(ModelsRoute, ModelsPage);
lazy_page!(PlacementRoute, PlacementPage);
lazy_page!(ReplicasRoute, ReplicasPage);
lazy_page!(WeightsRoute, WeightsPage);
lazy_page!(AuditRoute, AuditPage);
lazy_page!(WallRoute, WallPage);
lazy_page!(WallSetupRoute, WallSetupPage);
