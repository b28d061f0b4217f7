//! `/wall`: the read-only screen across the room. Large type, dark, nothing
//! to click; the panels and their turns come from the link
//! (`/wall?panels=models,nodes&cycle=30`), so a kiosk browser is set up
//! once. When the data cannot be refreshed the last good data stays, marked
//! stale; a page from an older build of the console reloads itself once.

use leptos::prelude::*;
use leptos::tachys::html::attribute::custom::custom_attribute;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::components::ClusterBadge;
use crate::format::{self, file_size};
use crate::live::Live;
use crate::live::markup::WALL_SHOWN_ATTR;
use crate::server_fns::wall::{ClusterWall, read_wall, read_walls};
use crate::ui_settings::UiSettings;
use crate::wall::{Panel, RECENT_ROWS, WallLayout, WallView};
use llmgw_journal::Sample;
use llmgw_journal::record::JournalEvent;

/// Models that fit a panel at 1920x1080 (and 4K, scaled), each on two
/// lines (the model, then why); one fewer when "and N more" follows.
/// Measured with the panel's own scroll height.
const LIST_ROWS: usize = 4;

/// Nodes in trouble that fit, each on one line: with the last hour under
/// them, and without.
const TROUBLE_ROWS: (usize, usize) = (3, 5);

/// How many rows a list panel has room for: a wall of one cluster gives
/// each panel a share of the screen; a wall of several stacks every panel
/// of a cluster in its column, so each lists its top names only, rather
/// than totals whose names are cut off below.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Room {
    models: usize,
    trouble: (usize, usize),
}

const FULL: Room = Room {
    models: LIST_ROWS,
    trouble: TROUBLE_ROWS,
};

/// A column of `panels` panels, on a screen as tall as one cluster's wall.
fn in_a_column(panels: usize) -> Room {
    if panels <= 2 {
        return FULL;
    }
    Room {
        models: 2,
        trouble: (1, 2),
    }
}

fn layout_from_query() -> Memo<WallLayout> {
    let query = use_query_map();
    Memo::new(move |_| {
        query
            .with(|q| WallLayout::from_query(q.get("panels").as_deref(), q.get("cycle").as_deref()))
    })
}

#[component]
pub fn WallPage() -> impl IntoView {
    let layout = layout_from_query();
    let ui = UiSettings::current();
    // `/wall?clusters=eu,us`: several clusters side by side.
    let several = use_query_map()
        .with_untracked(|q| q.get("clusters"))
        .filter(|_| ui.cluster.is_none());
    let body = match several {
        Some(clusters) => {
            let shown: String = clusters
                .chars()
                .take(200)
                .collect::<String>()
                .replace(',', " · ");
            let data = Resource::new(move || clusters.clone(), read_walls);
            view! {
                <header class="wall-head">
                    <span class="wall-cluster">{shown}</span>
                    <Clock />
                </header>
                <Live
                    resource=data
                    render={move |walls: Vec<ClusterWall>| {
                        let layout = layout.get_untracked();
                        view! { <ClusterColumns walls layout /> }
                    }}
                />
            }
            .into_any()
        }
        None => {
            let data = Resource::new(|| (), |_| read_wall());
            view! {
                <header class="wall-head">
                    {ui.cluster.clone().map(|c| view! { <ClusterBadge tag=c /> })}
                    <span class="wall-cluster">{ui.admin_api.clone()}</span>
                    <Clock />
                </header>
                <Live
                    resource=data
                    render={move |view: WallView| {
                        let layout = layout.get_untracked();
                        view! { <Panels view layout /> }
                    }}
                />
            }
            .into_any()
        }
    };
    view! {
        <Title text="Wall" />
        // The panel on screen is the `PanelTurns` island's to say.
        {view! { <div class="wall">{body}</div> }.add_any_attr(custom_attribute(WALL_SHOWN_ATTR, "0"))}
        {
            let l = layout.get_untracked();
            view! { <PanelTurns count=l.panels.len() cycle_seconds=l.cycle_seconds /> }
        }
    }
}

/// The panels take turns on screen: the page says which one by the
/// `data-shown` of its `.wall`, an attribute only this island writes (the
/// live document leaves it alone when it patches the page).
#[island]
fn PanelTurns(count: usize, cycle_seconds: Option<u64>) -> impl IntoView {
    #[cfg(feature = "hydrate")]
    if let Some(seconds) = cycle_seconds.filter(|_| count > 1) {
        let shown = std::cell::Cell::new(0usize);
        // The timer lasts the page's life.
        let _ = set_interval_with_handle(
            move || {
                shown.set((shown.get() + 1) % count);
                if let Ok(Some(wall)) = document().query_selector(".wall") {
                    let _ = wall.set_attribute(WALL_SHOWN_ATTR, &shown.get().to_string());
                }
            },
            std::time::Duration::from_secs(seconds),
        );
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (count, cycle_seconds);
}

/// The time of day on the browser's clock; the server writes its own (UTC)
/// until the page takes over.
#[island]
fn Clock() -> impl IntoView {
    let now = RwSignal::new(clock_text());
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        now.set(clock_text());
        if let Ok(handle) = set_interval_with_handle(
            move || now.set(clock_text()),
            std::time::Duration::from_secs(1),
        ) {
            on_cleanup(move || handle.clear());
        }
    });
    view! { <time class="wall-clock">{move || now.get()}</time> }
}

fn clock_text() -> String {
    #[cfg(feature = "hydrate")]
    {
        let d = js_sys::Date::new_0();
        format!(
            "{:02}:{:02}:{:02}",
            d.get_hours(),
            d.get_minutes(),
            d.get_seconds()
        )
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        format!("{} UTC", time_of_day(secs))
    }
}

/// "HH:MM:SS" of a Unix time, UTC.
fn time_of_day(secs: i64) -> String {
    let s = secs.rem_euclid(86_400);
    format!("{:02}:{:02}:{:02}", s / 3600, (s % 3600) / 60, s % 60)
}

/// One column per cluster, each headed by its cluster; a cluster that
/// fails keeps its last panels, marked stale, and the others are as they
/// are.
#[component]
fn ClusterColumns(walls: Vec<ClusterWall>, layout: WallLayout) -> impl IntoView {
    let count = walls.len();
    view! {
        <div class="wall-clusters" data-count=count>
            {walls
                .into_iter()
                .map(|w| {
                    let layout = layout.clone();
                    view! {
                        <section class="wall-column" class:stale=w.error.is_some() data-cluster=w.tag.id.clone()>
                            <h2 class="wall-column-head"><ClusterBadge tag=w.tag.clone() /></h2>
                            {w.error.clone().map(|e| view! { <p class="stale-note">{format!("Not current: {e}")}</p> })}
                            {match w.view {
                                Some(view) => {
                                    let room = in_a_column(layout.panels.len());
                                    view! { <Panels view layout room /> }.into_any()
                                }
                                None => view! { <p class="big">"—"</p> }.into_any(),
                            }}
                        </section>
                    }
                })
                .collect_view()}
        </div>
    }
}

#[component]
fn Panels(view: WallView, layout: WallLayout, #[prop(default = FULL)] room: Room) -> impl IntoView {
    let cycling = layout.cycle_seconds.is_some();
    let taken = format!("data of {} UTC", time_of_day(view.taken_at));
    view! {
        <p class="wall-taken">{taken}</p>
        <div class="wall-panels" class:cycling=cycling data-count=layout.panels.len()>
            {layout
                .panels
                .iter()
                .enumerate()
                .map(|(i, panel)| {
                    let panel = *panel;
                    view! {
                        <section class="wall-panel" data-panel=panel.slug() data-index=i>
                            <h2>{panel.title()}</h2>
                            {panel_body(panel, &view, room)}
                        </section>
                    }
                })
                .collect_view()}
        </div>
    }
}

/// The nodes in trouble, at most `rows` of them, each with what is wrong.
fn troubled(v: &WallView, rows: usize) -> AnyView {
    listed(
        &v.troubled,
        rows,
        ("warn", "node", "nodes", "No node in trouble"),
        "compact",
        |t| {
            view! {
                <li>
                    <span class="name">{t.node.clone()}</span>
                    <span class="why">
                        {t.what.join(" · ")}
                        {format::unhealthy_since_short(&t.unhealthy_since).map(|s| format!(" · {s}"))}
                    </span>
                </li>
            }
            .into_any()
        },
    )
}

/// A list panel: how many, as many of them as `rows` fit, and how many more;
/// `(tone, one, many, none)` say how the count reads, or that there is
/// nothing to list.
fn listed<T>(
    items: &[T],
    rows: usize,
    (tone, one, many, none): (&'static str, &'static str, &'static str, &'static str),
    class: &'static str,
    item: impl Fn(&T) -> AnyView,
) -> AnyView {
    let count = format!(" {}", if items.len() == 1 { one } else { many });
    listed_as(
        items,
        rows,
        (tone, items.len().to_string(), count, none),
        class,
        item,
    )
}

/// [`listed`], its headline figure and words given.
fn listed_as<T>(
    items: &[T],
    rows: usize,
    (tone, figure, words, none): (&'static str, String, String, &'static str),
    class: &'static str,
    item: impl Fn(&T) -> AnyView,
) -> AnyView {
    if items.is_empty() {
        return view! { <p class="big ok">{none}</p> }.into_any();
    }
    // "and N more" takes the room of a row.
    let shown = if items.len() <= rows {
        items.len()
    } else {
        rows - 1
    };
    let more = items.len() - shown;
    view! {
        <p class=format!("big {tone}")>{figure}<span class="of">{words}</span></p>
        <ul class=format!("rows {class}")>{items.iter().take(shown).map(item).collect_view()}</ul>
        {(more > 0).then(|| view! { <p class="more">{format!("and {more} more")}</p> })}
    }
    .into_any()
}

/// What the journal recorded in the last hour, newest first: on a wall,
/// "what changed" is the question after "what is wrong".
#[component]
fn LastHour(recent: Vec<JournalEvent>) -> impl IntoView {
    (!recent.is_empty()).then(|| {
        view! {
            <h3 class="recent">"In the last hour"</h3>
            <ul class="rows compact recent">
                {recent
                    .into_iter()
                    .map(|e| {
                        let of = e.node.clone().or(e.model.clone()).unwrap_or_default();
                        view! {
                            <li data-kind=e.kind.as_str()>
                                <span class="name">{format!("{} {of}", &time_of_day(e.at)[..5])}</span>
                                <span class="what">{e.kind.label()}</span>
                                <span class="why">{e.change_text()}{e.actor.map(|a| format!(" by {a}"))}</span>
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
        }
    })
}

fn panel_body(panel: Panel, v: &WallView, room: Room) -> AnyView {
    match panel {
        Panel::Nodes => view! {
            <p class="big">{format!("{} free", v.gpu_free)}<span class="of">{format!(" of {} GPUs", v.gpu_total)}</span></p>
            <ul class="counts">
                {v.nodes_by_state
                    .iter()
                    .map(|(state, n)| view! { <li class=format!("state-{state}")><strong>{*n}</strong>" "{state.clone()}</li> })
                    .collect_view()}
                <li class:bad={v.unreported > 0}><strong>{v.unreported}</strong>" not reporting"</li>
                <li class:bad={v.unhealthy_gpus > 0}><strong>{v.unhealthy_gpus}</strong>" unhealthy GPUs"</li>
            </ul>
        }
        .into_any(),
        Panel::Models => listed_as(
            &v.not_serving,
            room.models,
            {
                // Down (no replica ready) and below wanted, counted apart.
                let pulse = v.pulse();
                let (down, below) = (pulse.not_serving, pulse.below_wanted);
                let other = v.not_serving.len() - down - below;
                let tone = if down > 0 { "bad" } else { "warn" };
                let parts: Vec<(usize, &str)> = [(down, "not serving"), (below, "below wanted"), (other, "in trouble")]
                    .into_iter()
                    .filter(|(n, _)| *n > 0)
                    .collect();
                let figure = parts.first().map_or(0, |(n, _)| *n).to_string();
                let words = parts
                    .iter()
                    .enumerate()
                    .map(|(i, (n, w))| if i == 0 { format!(" {w}") } else { format!(" · {n} {w}") })
                    .collect::<String>();
                (tone, figure, words, "Every model serves")
            },
            "",
            |m| {
                view! {
                    <li class:down=m.down class:below=m.below>
                        // The name's distinctive end, the organisation
                        // dropped; the whole name on hover.
                        <span class="name" title=m.model.clone()>{crate::wall::short_model_name(&m.model).to_string()}</span>
                        <span class="what">{m.what.clone()}{m.since.as_ref().map(|s| format!(" · {}", format::since_short(s)))}</span>
                        <span class="why">{m.why.clone()}</span>
                    </li>
                }
                .into_any()
            },
        ),
        Panel::Trouble => {
            // The last hour takes the room of as many nodes, and one more
            // for its heading: the panel fits its screen either way.
            let recent: Vec<JournalEvent> =
                v.recent.iter().take(RECENT_ROWS).cloned().collect();
            let rows = if recent.is_empty() { room.trouble.1 } else { room.trouble.0 };
            view! { {troubled(v, rows)} <LastHour recent /> }.into_any()
        }
        Panel::Weights => view! {
            <p class="big">{if v.reclaimable_bytes > 0 { file_size(v.reclaimable_bytes) } else { "nothing".to_string() }}</p>
            <p class="of">{format!("reclaimable as orphaned weights on {}", format::count(v.orphan_nodes, "node", "nodes"))}</p>
        }
        .into_any(),
        Panel::Trends => {
            let t = &v.trends;
            let span = match (t.first(), t.last()) {
                (Some(a), Some(b)) if b.at > a.at => format!("over the last {}", format::span(b.at - a.at)),
                _ => "from now on".to_string(),
            };
            view! {
                <p class="of">{span}</p>
                <div class="sparks">
                    <Spark label="GPUs free" samples=t.clone() value=|s: &Sample| s.gpu_free />
                    <Spark label="models not serving" samples=t.clone() value=|s: &Sample| s.not_serving />
                    <Spark label="nodes in trouble" samples=t.clone() value=|s: &Sample| s.nodes_in_trouble />
                    <Spark label="unhealthy GPUs" samples=t.clone() value=|s: &Sample| s.unhealthy_gpus />
                </div>
            }
            .into_any()
        }
    }
}

const SPARK_W: f64 = 300.0;
const SPARK_H: f64 = 60.0;

/// The points of a sparkline of `(time, value)` pairs, oldest first, in a
/// SPARK_W × SPARK_H box: placed by time, so that a gap in the record
/// shows as a long straight stretch, not as nothing.
fn spark_points(values: &[(i64, i64)]) -> String {
    let (lo, hi) = (
        values.iter().map(|v| v.1).min().unwrap_or(0),
        values.iter().map(|v| v.1).max().unwrap_or(0),
    );
    let range = (hi - lo).max(1) as f64;
    let (first, last) = (
        values.first().map_or(0, |v| v.0),
        values.last().map_or(0, |v| v.0),
    );
    let span = (last - first).max(1) as f64;
    values
        .iter()
        .map(|(at, v)| {
            let x = (at - first) as f64 / span * SPARK_W;
            let y = SPARK_H - 4.0 - (*v - lo) as f64 / range * (SPARK_H - 8.0);
            format!("{x:.1},{y:.1}")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[component]
fn Spark(label: &'static str, samples: Vec<Sample>, value: fn(&Sample) -> i64) -> impl IntoView {
    let values: Vec<(i64, i64)> = samples.iter().map(|s| (s.at, value(s))).collect();
    let now = values.last().map(|v| v.1).unwrap_or_default();
    let points = spark_points(&values);
    view! {
        <figure class="spark" data-spark=label>
            <svg viewBox=format!("0 0 {SPARK_W} {SPARK_H}") preserveAspectRatio="none" role="img" aria-label=format!("{label} over time")>
                <polyline points=points fill="none" stroke="currentColor" stroke-width="3" />
            </svg>
            <figcaption><strong>{now}</strong>" "{label}</figcaption>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sparkline_spans_its_box() {
        assert_eq!(
            spark_points(&[(0, 0), (10, 5), (20, 10)]),
            "0.0,56.0 150.0,30.0 300.0,4.0"
        );
        // A day of nothing, then an hour: the day takes its room.
        assert_eq!(
            spark_points(&[(0, 0), (86_400, 0), (90_000, 10)]),
            "0.0,56.0 288.0,56.0 300.0,4.0"
        );
        assert_eq!(spark_points(&[(7, 3)]), "0.0,56.0");
        assert_eq!(time_of_day(3600 * 25 + 61), "01:01:01");
    }
}
