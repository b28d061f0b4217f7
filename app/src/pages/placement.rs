//! `/models/{name}/placement`: why a model is or is not placed, joined with
//! the live state of every node that turned it down. The page people paste
//! into a chat: the grouping (`?group=`) and filter (`?q=`) are in the URL,
//! and it reads fully with JavaScript off.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use std::collections::HashMap;

use crate::admin_api::types::{NodeView, Rejection};
use crate::components::{
    DataTable, FilterBar, FixHints, Known, NamedHeading, NotFound, OutlookBanner, ReceiptBanner,
    StatusBadge,
};
use crate::error::ConsoleError;
use crate::fixes::{Fix, Outlook};
use crate::format::{self, ModelStatus, Situation};
use crate::joins::{group_by_node, group_by_reason};
use crate::live::Live;
use crate::reasons;
use crate::server_fns::placement::{PlacementReport, explain_placement};
use crate::table::TableRow;
use crate::table::{TableQuery, use_table_query};
use crate::tables::{LiveNode, RejectionRow};
use crate::urls::{self, encode_query};

/// How the rejections are laid out (`?group=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Grouping {
    Table,
    Reason,
    Node,
}

impl Grouping {
    fn from_query(q: &TableQuery) -> Self {
        match q
            .rest
            .iter()
            .find(|(k, _)| k == "group")
            .map(|(_, v)| v.as_str())
        {
            Some("reason") => Self::Reason,
            Some("node") => Self::Node,
            _ => Self::Table,
        }
    }

    fn param(self) -> &'static str {
        match self {
            Self::Table => "table",
            Self::Reason => "reason",
            Self::Node => "node",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::Table => "Every rejection",
            Self::Reason => "By reason",
            Self::Node => "By node",
        }
    }
}

#[component]
pub fn PlacementPage() -> impl IntoView {
    let params = use_params_map();
    let model = Memo::new(move |_| {
        params.with(|p| urls::model_from_placement_path(&p.get("rest").unwrap_or_default()))
    });
    move || match model.get() {
        Some(name) => view! { <Placement name /> }.into_any(),
        None => view! { <NotFound /> }.into_any(),
    }
}

#[component]
fn Placement(name: String) -> impl IntoView {
    let report = {
        let name = name.clone();
        Resource::new(|| (), move |_| explain_placement(name.clone()))
    };
    let query = use_table_query();
    // The dialog: the uncordon a fix offers asks here, as on the node pages.
    let heading = name.clone();
    view! {
        <p class="crumbs"><a href=urls::scoped("/models")>"Models"</a> " / "</p>
        // The name is the heading only once the catalog is known to list it.
        <Transition fallback=|| ()>
            {move || report.get().map(|answer| {
                let known = match &answer {
                    Ok(_) => Known::Listed,
                    Err(ConsoleError::AdminApi(e)) if e.http_status() == 404 => Known::Missing,
                    Err(_) => Known::Unsure,
                };
                let title = format!("{heading}: placement");
                view! { <NamedHeading name=heading.clone() known what="model" title /> }
            })}
        </Transition>
        <ReceiptBanner />
        <crate::components::NodeActionDialog />
        <Live resource=report render={move |report| view! { <Report report query /> }} />
        <crate::components::History
            title="History of this model"
            query=crate::events_query::EventQuery {
                model: Some(name.clone()),
                limit: Some(HISTORY),
                ..Default::default()
            }
        />
    }
}

/// Records in a history section; the rest are on the events page.
const HISTORY: u32 = 10;

#[component]
fn Report(report: PlacementReport, query: Memo<TableQuery>) -> impl IntoView {
    let situation = Situation::of(&report.explain);
    let q = query.get();
    let grouping = Grouping::from_query(&q);
    let total = report.explain.rejections.len();
    let name = report.explain.model.clone();
    let ix = report.around.index();
    let advice = ix.advise(&name, &report.explain.rejections);
    let outlook = Outlook::of(&advice);
    let shown = q.apply(
        report
            .explain
            .rejections
            .iter()
            .zip(&advice)
            .map(|(r, fixes)| {
                RejectionRow::of(r, ix.node(&r.node).map(|n| n.row.clone()), fixes.clone())
            })
            .collect(),
    );
    // The fixes of each shown rejection, for the groupings.
    let fixes_of: HashMap<String, Vec<Fix>> = shown
        .iter()
        .map(|row| (row.key(), row.fixes.clone()))
        .collect();
    let lives: HashMap<String, NodeView> = report
        .around
        .nodes
        .iter()
        .map(|n| (n.id.clone(), n.row.clone()))
        .collect();
    let also_in = view! {
        <crate::components::AlsoIn
            tags=report.also_in.clone()
            path=format!("/models/{}/placement", urls::encode_component(&name))
        />
    };
    let team = view! { <crate::components::TeamLinks model=name.clone() /> };
    view! {
        {also_in}
        {team}
        <section class="situation" data-situation=format!("{situation:?}")>
            <p class="verdict" class:bad={situation == Situation::NotPlaced}>{situation.sentence()}</p>
            <p class="explained-age muted">{format!(
                "llmgw's explanation, read {}; each node beside it is shown as it is now.",
                match report.explained_secs_ago {
                    0 => "just now".to_string(),
                    s => format!("{} ago", format::span(s as i64)),
                }
            )}</p>
            {match &report.model {
                Some(m) => {
                    let status = ModelStatus::of(m);
                    let (since, failing) = m
                        .since
                        .clone()
                        .map(|s| (s.status, s.failing))
                        .unwrap_or_default();
                    let failing = failing.map(|error| view! {
                        <p class="model-line failing">
                            <span class="badge bad">"failing"</span>
                            " " <span class="error">{error}</span> " "
                            <a href=urls::replicas_of(&name)>"its replicas"</a>
                        </p>
                    });
                    view! {
                        {failing}
                        <p class="model-line">
                            <StatusBadge status />
                            {since.as_ref().map(|s| view! { " " <span class="since" title="From the console's journal: a change shorter than one poll is not seen.">{format::since(s)}</span> "." })}
                            {format!(" {} of {} wanted replicas ready, {} in all. ", m.ready, m.min, m.total)}
                            <a href=urls::replicas_of(&name)>
                                {format::count(report.replicas.len(), "replica", "replicas")}
                            </a>
                            {(!m.profiles.is_empty()).then(|| format!(" · profiles: {}", m.profiles.join(", ")))}
                        </p>
                    }
                        .into_any()
                }
                None => view! { <p class="warn">"The catalog does not list this model (any more)."</p> }.into_any(),
            }}
        </section>
        {(total > 0)
            .then(move || {
                view! {
                    <OutlookBanner outlook />
                    <nav class="grouping" aria-label="Group the rejections">
                        {[Grouping::Table, Grouping::Reason, Grouping::Node]
                            .into_iter()
                            .map(|g| {
                                let href = grouping_href(&q, g);
                                let current = (g == grouping).then_some("page");
                                view! { <a href=href aria-current=current>{g.label()}</a> }
                            })
                            .collect_view()}
                    </nav>
                    <FilterBar query shown=shown.len() total noun="rejections" />
                    {if shown.is_empty() {
                        view! { <p class="empty">"No rejection matches this filter."</p> }.into_any()
                    } else {
                        match grouping {
                            Grouping::Table => view! {
                                <DataTable rows=crate::dated::undated(shown) query class="data rejections stack" />
                            }
                                .into_any(),
                            Grouping::Reason => view! { <ByReason rejections=plain(shown) fixes_of lives /> }.into_any(),
                            Grouping::Node => view! { <ByNode rejections=plain(shown) fixes_of lives /> }.into_any(),
                        }
                    }}
                }
            })}
    }
}

fn grouping_href(q: &TableQuery, g: Grouping) -> String {
    let mut pairs: Vec<(String, String)> = q
        .rest
        .iter()
        .filter(|(k, _)| k != "group")
        .cloned()
        .collect();
    pairs.push(("group".into(), g.param().into()));
    if !q.q.is_empty() {
        pairs.push(("q".into(), q.q.clone()));
    }
    format!("?{}", encode_query(&pairs))
}

fn plain(rows: Vec<RejectionRow>) -> Vec<Rejection> {
    rows.into_iter().map(|r| r.rejection).collect()
}

/// The key a [`RejectionRow`] of `r` has, to find its fixes by.
fn key_of(r: &Rejection) -> String {
    RejectionRow::of(r, None, Vec::new()).key()
}

#[component]
fn ByReason(
    rejections: Vec<Rejection>,
    fixes_of: HashMap<String, Vec<Fix>>,
    lives: HashMap<String, NodeView>,
) -> impl IntoView {
    // Each node's fixes under each kind of reason, gathered in one pass.
    let mut by_kind: HashMap<(String, String), Vec<Fix>> = HashMap::new();
    for r in rejections.iter().filter(|r| !r.node.is_empty()) {
        let all = by_kind
            .entry((r.node.clone(), reasons::kind_of(&r.reason)))
            .or_default();
        for f in fixes_of.get(&key_of(r)).into_iter().flatten() {
            if !all.contains(f) {
                all.push(f.clone());
            }
        }
    }
    view! {
        <div class="groups by-reason">
            {group_by_reason(&rejections)
                .into_iter()
                .map(|g| {
                    let kind = g.kind.clone();
                    view! {
                        <section class="group">
                            <h2>
                                <span class="reason">{g.reason}</span>
                                <span class="group-count">{format!(" ×{}", g.count)}</span>
                            </h2>
                            {if g.nodes.is_empty() {
                                view! { <p class="muted">"Names no node (a pool or profile as a whole)."</p> }.into_any()
                            } else {
                                view! {
                                    <ul>
                                        {g.nodes
                                            .into_iter()
                                            .map(|n| {
                                                let fixes = by_kind
                                                    .get(&(n.clone(), kind.clone()))
                                                    .cloned()
                                                    .unwrap_or_default();
                                                let live = lives.get(&n).cloned();
                                                view! { <li><LiveNode node=n live /> <FixHints fixes /></li> }
                                            })
                                            .collect_view()}
                                    </ul>
                                }
                                    .into_any()
                            }}
                        </section>
                    }
                })
                .collect_view()}
        </div>
    }
}

#[component]
fn ByNode(
    rejections: Vec<Rejection>,
    fixes_of: HashMap<String, Vec<Fix>>,
    lives: HashMap<String, NodeView>,
) -> impl IntoView {
    view! {
        <div class="groups by-node">
            {group_by_node(&rejections)
                .into_iter()
                .map(|g| {
                    let heading = if g.node.is_empty() {
                        view! { <span>{g.label}</span> }.into_any()
                    } else {
                        let live = lives.get(&g.node).cloned();
                        view! { <LiveNode node=g.node live /> }.into_any()
                    };
                    view! {
                        <section class="group">
                            <h2>{heading}</h2>
                            <ul>
                                {g.rejections
                                    .into_iter()
                                    .map(|r| {
                                        let fixes = fixes_of.get(&key_of(&r)).cloned().unwrap_or_default();
                                        view! {
                                            <li>
                                                <span class="reason">{r.reason}</span>
                                                <span class="muted">{format!(" (profile {}, pool {})", r.profile, format::or_dash(&r.pool))}</span>
                                                {(!fixes.is_empty()).then(|| view! { <FixHints fixes /> })}
                                            </li>
                                        }
                                    })
                                    .collect_view()}
                            </ul>
                        </section>
                    }
                })
                .collect_view()}
        </div>
    }
}
