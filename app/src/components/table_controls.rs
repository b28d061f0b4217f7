//! What an operator works a table with: sort links in its header, the
//! filter box, the pager. Links and a GET form, so all of it works without
//! JavaScript and leaves the view in the URL.

use leptos::prelude::*;

use crate::table::{FacetChoice, Paging, TableQuery};

/// A header cell that sorts its column when clicked: a link, so a new sort
/// is a page of its own.
#[component]
pub fn SortHeader(
    query: Memo<TableQuery>,
    column: &'static str,
    label: &'static str,
    #[prop(optional_no_strip)] title: Option<&'static str>,
) -> impl IntoView {
    let (aria_sort, href) = query.with_untracked(|q| (q.aria_sort(column), q.sort_href(column)));
    let arrow = match aria_sort {
        "ascending" => " ▲",
        "descending" => " ▼",
        _ => "",
    };
    view! {
        <th scope="col" aria-sort=aria_sort title=title>
            <a href=href>{label}{arrow}</a>
        </th>
    }
}

/// The filter box and the count of rows shown. A plain GET form, so it
/// works without JavaScript and leaves the filter in the URL.
#[component]
pub fn FilterBar(
    query: Memo<TableQuery>,
    shown: usize,
    total: usize,
    noun: &'static str,
    /// The page that gives the table as data, for its download links.
    #[prop(optional_no_strip)]
    data_page: Option<&'static str>,
    /// The facets the table offers (`TableRow::facets`).
    #[prop(optional)]
    facets: Vec<FacetChoice>,
    /// The columns an operator may hide: (id, header).
    #[prop(optional)]
    columns: Vec<(&'static str, &'static str)>,
) -> impl IntoView {
    let q = query.with_untracked(|q| q.q.clone());
    let layout = (!columns.is_empty()).then(|| query.with_untracked(|q| layout_menu(q, columns)));
    let choices = query.with_untracked(|q| facet_choices(q, facets));
    let applied = query.with_untracked(applied_chips);
    let downloads = data_page.map(|page| {
        let (csv, json) =
            query.with_untracked(|q| (q.data_href(page, "csv"), q.data_href(page, "json")));
        view! {
            <span class="downloads">
                <a href=csv download>"Download CSV"</a>
                " · "
                <a href=json download>"JSON"</a>
            </span>
        }
    });
    let hidden = query.with_untracked(TableQuery::filter_form_fields);
    let filtered = shown != total;
    view! {
        <form class="filter-bar" method="get" role="search">
            {hidden
                .into_iter()
                .map(|(k, v)| view! { <input type="hidden" name=k value=v /> })
                .collect_view()}
            <label>
                <span class="visually-hidden">"Filter " {noun}</span>
                <input type="search" name="q" value=q placeholder="Filter…" aria-label=format!("Filter {noun}") />
            </label>
            <button type="submit">"Filter"</button>
            <span class="count" class:filtered=filtered>
                {if filtered {
                    format!("{shown} of {total} {noun}")
                } else {
                    format!("{total} {noun}")
                }}
            </span>
            {downloads}
        </form>
        {layout}
        {choices}
        {applied}
    }
}

/// How dense the rows are and which columns show: a link and a GET form,
/// kept in the URL like the rest of the view.
fn layout_menu(q: &TableQuery, columns: Vec<(&'static str, &'static str)>) -> AnyView {
    let density = if q.compact {
        view! { <a class="density" href=q.compact_href(false)>"Comfortable rows"</a> }
    } else {
        view! { <a class="density" href=q.compact_href(true)>"Compact rows"</a> }
    };
    let hidden = q.columns_form_fields();
    let boxes = columns
        .into_iter()
        .map(|(id, label)| {
            view! {
                <label><input type="checkbox" name="cols" value=id checked=q.shows(id) />" "{label}</label>
            }
        })
        .collect_view();
    let chosen = q.cols.is_some();
    view! {
        <div class="layout">
            {density}
            <details class="columns-menu">
                <summary class:chosen=chosen>"Columns"</summary>
                <form method="get" class="columns-form">
                    {hidden
                        .into_iter()
                        .map(|(k, v)| view! { <input type="hidden" name=k value=v /> })
                        .collect_view()}
                    // Ticking no box still says so.
                    <input type="hidden" name="cols" value="" />
                    {boxes}
                    <button type="submit">"Show these"</button>
                    " "
                    <a href=q.every_column_href()>"Every column"</a>
                </form>
            </details>
        </div>
    }
    .into_any()
}

/// Each facet's values as links above the table, the one applied marked:
/// what the overview's figures link to, offered where the table is.
fn facet_choices(q: &TableQuery, facets: Vec<FacetChoice>) -> Option<impl IntoView + use<>> {
    (!facets.is_empty()).then(|| {
        let groups = facets
            .into_iter()
            .map(|facet| {
                let applied = q.facet(facet.param).map(str::to_string);
                let any = q.facet_href(facet.param, None);
                let values = facet
                    .values
                    .into_iter()
                    .map(|(value, words)| {
                        let on = applied.as_deref() == Some(value.as_str());
                        let href = q.facet_href(facet.param, Some(&value));
                        view! { <a href=href aria-current=on.then_some("true")>{words}</a> }
                    })
                    .collect_view();
                view! {
                    <span class="facet" role="group" aria-label=facet.label>
                        <span class="facet-name">{facet.label}": "</span>
                        <a href=any aria-current=applied.is_none().then_some("true")>"any"</a>
                        {values}
                    </span>
                }
            })
            .collect_view();
        view! { <nav class="facets" aria-label="Narrow the table">{groups}</nav> }
    })
}

/// What narrows the view, each a chip that removes it, and a way back to
/// every row: "2 of 12 nodes" never stands without saying why.
fn applied_chips(q: &TableQuery) -> Option<impl IntoView + use<>> {
    let applied = q.narrowed_by();
    (!applied.is_empty()).then(|| {
        let chips = applied
            .into_iter()
            .map(|(param, value)| {
                let name = if param == "q" {
                    "filter".to_string()
                } else {
                    param.clone()
                };
                let href = q.facet_href(&param, None);
                let label = format!("Remove {name}: {value}");
                view! {
                    <a class="chip" href=href aria-label=label>
                        {name}": "<strong>{value}</strong>
                        <span class="chip-x" aria-hidden="true">" ×"</span>
                    </a>
                }
            })
            .collect_view();
        view! {
            <p class="applied">
                <span class="applied-name">"Showing only "</span>
                {chips}
                <a class="clear-all" href=q.unnarrowed_href()>"Show all"</a>
            </p>
        }
    })
}

/// "Rows 101–200 of 5000", with links to the pages before and after; nothing
/// when everything fits on one page.
#[component]
fn Pager(
    query: Memo<TableQuery>,
    paging: Paging,
    shown: usize,
    noun: &'static str,
) -> impl IntoView {
    let Paging {
        page,
        pages,
        first,
        last,
    } = paging;
    (pages > 1).then(|| {
        let q = query.get_untracked();
        let link = |to: usize, rel: &'static str, text: &'static str| {
            view! { <a href=q.page_href(to) rel=rel>{text}</a> }
        };
        view! {
            <nav class="pager" aria-label=format!("Pages of {noun}")>
                {(page > 0).then(|| link(page - 1, "prev", "← Previous"))}
                <span>{format!("Rows {first}–{last} of {shown} · page {} of {pages}", page + 1)}</span>
                {(page + 1 < pages).then(|| link(page + 1, "next", "Next →"))}
            </nav>
        }
    })
}

/// The filter bar above a table, and in place of the table a sentence when
/// the filter leaves no row (never an empty table, which reads as "none").
/// With `paging`, the rows are one page of those the filter passes.
#[component]
pub fn FilteredTable(
    query: Memo<TableQuery>,
    shown: usize,
    total: usize,
    /// "nodes", for the count.
    noun: &'static str,
    /// "node", for "No node matches this filter."
    one: &'static str,
    #[prop(optional)] paging: Option<Paging>,
    /// The page that gives the table as data.
    #[prop(optional_no_strip)]
    data_page: Option<&'static str>,
    /// The facets the table offers.
    #[prop(optional)]
    facets: Vec<FacetChoice>,
    /// The columns an operator may hide.
    #[prop(optional)]
    columns: Vec<(&'static str, &'static str)>,
    children: Children,
) -> impl IntoView {
    view! {
        <FilterBar query shown total noun data_page facets columns />
        {paging.map(|paging| view! { <Pager query paging shown noun /> })}
        {if shown == 0 {
            view! { <p class="empty">{format!("No {one} matches this filter.")}</p> }.into_any()
        } else {
            children().into_any()
        }}
    }
}
