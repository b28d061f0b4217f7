//! One table for every list: the header and the cells come from the row
//! type's columns. Pages are rendered on the server only; in the browser
//! the live document patches a table from the server's next render, and it
//! matches rows by the `data-key` every row carries here, so that a row
//! that stays keeps its elements (and the text selected or the button
//! focused in it) even when rows before it come or go.

use std::collections::HashSet;

use leptos::prelude::*;
use leptos::tachys::html::attribute::custom::custom_attribute;

use super::table_controls::{FilteredTable, SortHeader};
use crate::table::{ExportedTable, Row, RowNote, TablePage, TableQuery, TableRow};

/// Each row's key: a key that repeats in the list gets a suffix, since the
/// live document needs them distinct to match rows.
fn keys(rows: Vec<String>) -> Vec<String> {
    let mut seen = HashSet::with_capacity(rows.len());
    rows.into_iter()
        .map(|first| {
            let mut key = first.clone();
            let mut n = 1;
            while seen.contains(&key) {
                n += 1;
                key = format!("{first}#{n}");
            }
            seen.insert(key.clone());
            key
        })
        .collect()
}

/// `rows` as a table, each row under its key. Only what reads `T` is
/// generic; the markup is laid out once, for every table (`table_view`):
/// a copy per row type would grow the binary by as much again per table.
#[component]
pub fn DataTable<T: TableRow>(
    rows: Vec<Row<T>>,
    query: Memo<TableQuery>,
    /// The table's classes (`data nodes`).
    class: &'static str,
) -> impl IntoView {
    let (shown, compact) = query.with_untracked(|q| (shown_columns::<T>(q), q.compact));
    let heads = shown
        .iter()
        .map(|&i| {
            let c = &T::COLUMNS[i];
            Head {
                id: c.id,
                label: c.label,
                title: c.title,
                label_hidden: c.label_hidden,
                sortable: c.sort.is_some(),
            }
        })
        .collect();
    let lines = keys(rows.iter().map(|r| r.key()).collect())
        .into_iter()
        .zip(&rows)
        .map(|(key, row)| Line {
            key,
            mark: row.mark(),
            cells: shown
                .iter()
                .map(|&i| {
                    let c = &T::COLUMNS[i];
                    Cell {
                        heads_row: T::ROW_HEADER == Some(i),
                        class: c.class,
                        label: c.label,
                        view: (c.cell)(row),
                    }
                })
                .collect(),
            notes: T::notes(row),
        })
        .collect();
    table_view(
        TableParts {
            class,
            compact,
            key_attr: T::KEY_ATTR,
            hint: T::NOTE_HINT,
        },
        query,
        heads,
        lines,
    )
}

/// Which of `T`'s columns the view shows, by index: those chosen, and
/// always the one that names the row.
fn shown_columns<T: TableRow>(q: &TableQuery) -> Vec<usize> {
    (0..T::COLUMNS.len())
        .filter(|&i| T::ROW_HEADER == Some(i) || q.shows(T::COLUMNS[i].id))
        .collect()
}

/// The columns an operator may hide, for the chooser: all but the one
/// that names the row.
pub fn choosable_columns<T: TableRow>() -> Vec<(&'static str, &'static str)> {
    T::COLUMNS
        .iter()
        .enumerate()
        .filter(|(i, _)| T::ROW_HEADER != Some(*i))
        .map(|(_, c)| (c.id, c.label))
        .collect()
}

/// A column's header, as the markup needs it.
struct Head {
    id: &'static str,
    label: &'static str,
    title: Option<&'static str>,
    label_hidden: bool,
    sortable: bool,
}

/// One row: its key, its mark, its cells and the notes under it.
struct Line {
    key: String,
    mark: Option<&'static str>,
    cells: Vec<Cell>,
    notes: Vec<RowNote>,
}

struct Cell {
    /// The cell that names the row (`<th scope="row">`).
    heads_row: bool,
    class: Option<&'static str>,
    /// Its header again, for tables that stack on a narrow screen.
    label: &'static str,
    view: AnyView,
}

/// What a table is, besides its rows.
struct TableParts {
    class: &'static str,
    compact: bool,
    /// The row's attribute that carries its key (`data-node`).
    key_attr: &'static str,
    hint: Option<&'static str>,
}

fn table_view(
    parts: TableParts,
    query: Memo<TableQuery>,
    heads: Vec<Head>,
    lines: Vec<Line>,
) -> AnyView {
    let colspan = heads.len();
    let head = heads
        .into_iter()
        .map(|c| {
            if c.sortable {
                view! { <SortHeader query column=c.id label=c.label title=c.title /> }.into_any()
            } else {
                view! {
                    <th scope="col" title=c.title>
                        <span class:visually-hidden=c.label_hidden>{c.label}</span>
                    </th>
                }
                .into_any()
            }
        })
        .collect_view();
    let TableParts {
        class,
        compact,
        key_attr,
        hint,
    } = parts;
    let body = lines
        .into_iter()
        .map(|line| row_view(line, key_attr, colspan, hint))
        .collect_view();
    view! {
        <table class=class class:compact=compact>
            <thead>
                <tr>{head}</tr>
            </thead>
            <tbody>{body}</tbody>
        </table>
    }
    .into_any()
}

/// A row and the notes under it.
fn row_view(
    line: Line,
    key_attr: &'static str,
    colspan: usize,
    hint: Option<&'static str>,
) -> AnyView {
    let cells = line
        .cells
        .into_iter()
        .map(|cell| {
            if cell.heads_row {
                view! { <th scope="row" class=cell.class>{cell.view}</th> }.into_any()
            } else {
                view! { <td class=cell.class data-label=cell.label>{cell.view}</td> }.into_any()
            }
        })
        .collect_view();
    let row = view! { <tr class=line.mark>{cells}</tr> };
    (
        // `data-key` too, the same for every table: the live document
        // matches rows by it when it patches the page.
        row.add_any_attr(custom_attribute(key_attr, line.key.clone()))
            .add_any_attr(custom_attribute(crate::live::markup::KEY_ATTR, line.key)),
        note_rows(line.notes, colspan, hint),
    )
        .into_any()
}

/// One page of a list, with the filter bar and the pager above it; a
/// sentence instead when the list itself is empty.
#[component]
pub fn PagedTable<T: TableRow>(
    page: TablePage<Row<T>>,
    query: Memo<TableQuery>,
    class: &'static str,
    /// "nodes", for the count.
    noun: &'static str,
    /// "node", for "No node matches this filter."
    one: &'static str,
    /// What an empty list means, in a sentence.
    empty: &'static str,
) -> impl IntoView {
    if page.total == 0 {
        return view! { <p class="empty">{empty}</p> }.into_any();
    }
    let paging = page.paging();
    let TablePage {
        rows, shown, total, ..
    } = page;
    // Said once above the table, not on every row that needs it.
    let legend = T::NOTE_HINT.filter(|_| rows.iter().any(|r| !T::notes(r).is_empty()));
    let table = view! { <DataTable rows query class /> }.into_any();
    paged_view(
        PagedParts {
            shown,
            total,
            noun,
            one,
            paging,
            data_page: T::EXPORTED_AS.map(ExportedTable::page),
            facets: T::facets(),
            columns: choosable_columns::<T>(),
            legend,
        },
        query,
        table,
    )
}

struct PagedParts {
    shown: usize,
    total: usize,
    noun: &'static str,
    one: &'static str,
    paging: crate::table::Paging,
    data_page: Option<&'static str>,
    facets: Vec<crate::table::FacetChoice>,
    columns: Vec<(&'static str, &'static str)>,
    legend: Option<&'static str>,
}

fn paged_view(parts: PagedParts, query: Memo<TableQuery>, table: AnyView) -> AnyView {
    let PagedParts {
        shown,
        total,
        noun,
        one,
        paging,
        data_page,
        facets,
        columns,
        legend,
    } = parts;
    let legend = legend.map(|hint| view! { <p class="legend">{hint}</p> });
    view! {
        <FilteredTable query shown total noun one paging data_page facets columns>
            {legend}
            {table}
        </FilteredTable>
    }
    .into_any()
}

fn note_rows(notes: Vec<RowNote>, colspan: usize, hint: Option<&'static str>) -> impl IntoView {
    notes
        .into_iter()
        .map(|note| {
            view! {
                <tr class=note.class>
                    <td colspan=colspan>
                        <span class=format!("badge {}", note.tone) title=hint>{note.badge}</span>
                        " "
                        {note.text}
                    </td>
                </tr>
            }
        })
        .collect_view()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::columns::Column;
    use crate::table::sort_key::SortKey;

    #[derive(Clone, Debug, PartialEq)]
    struct Row(&'static str, i64);

    impl TableRow for Row {
        type Dates = crate::dated::Undated;
        const KEY_ATTR: &'static str = "data-row";
        const COLUMNS: &'static [Column<Self>] =
            &[Column::<Self>::new("name", "Name", |r| r.0.into_any())
                .sort(|r| SortKey::Text(r.0.into()))
                .text(|r| r.0.into())];

        fn key(&self) -> String {
            self.0.into()
        }
    }

    #[test]
    fn repeated_keys_are_made_distinct() {
        let rows = ["a", "b", "a", "a"].map(String::from).to_vec();
        assert_eq!(keys(rows), ["a", "b", "a#2", "a#3"]);
    }

    #[test]
    fn columns_give_the_filter_text_and_the_sort_key() {
        let row = Row("gpu-7", 1);
        assert_eq!(row.text(), "gpu-7");
        assert_eq!(row.sort_key("name"), SortKey::Text("gpu-7".into()));
        assert_eq!(
            row.sort_key("unknown"),
            SortKey::Unknown,
            "the list keeps its order"
        );
    }
}
