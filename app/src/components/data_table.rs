//! One table for every list: the header and the cells come from the row
//! type's columns. Pages are rendered on the server only; in the browser
//! the live document patches a table from the server's next render, and it
//! matches rows by the `data-key` every row carries here, so that a row
//! that stays keeps its elements (and the text selected or the button
//! focused in it) even when rows before it come or go.

use std::collections::HashSet;

use leptos::either::Either;
use leptos::prelude::*;
use leptos::tachys::html::attribute::custom::custom_attribute;

use super::table_controls::{FilteredTable, SortHeader};
use crate::table::{ExportedTable, RowNote, TablePage, TableQuery, TableRow};

/// Each row's key: a key that repeats in the list gets a suffix, since the
/// live document needs them distinct to match rows.
fn keys<T: TableRow>(rows: &[T]) -> Vec<String> {
    let mut seen = HashSet::with_capacity(rows.len());
    rows.iter()
        .map(|row| {
            let mut key = row.key();
            let mut n = 1;
            while seen.contains(&key) {
                n += 1;
                key = format!("{}#{n}", row.key());
            }
            seen.insert(key.clone());
            key
        })
        .collect()
}

/// `rows` as a table, each row under its key.
#[component]
pub fn DataTable<T: TableRow>(
    rows: Vec<T>,
    query: Memo<TableQuery>,
    /// The table's classes (`data nodes`).
    class: &'static str,
) -> impl IntoView {
    let (shown, compact) = query.with_untracked(|q| (shown_columns::<T>(q), q.compact));
    let body = keys(&rows)
        .into_iter()
        .zip(&rows)
        .map(|(key, row)| table_row(key, row, &shown))
        .collect_view();
    let head = header::<T>(query, &shown);
    view! {
        <table class=class class:compact=compact>
            <thead>
                <tr>{head}</tr>
            </thead>
            <tbody>{body}</tbody>
        </table>
    }
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

/// One page of a list, with the filter bar and the pager above it; a
/// sentence instead when the list itself is empty.
#[component]
pub fn PagedTable<T: TableRow>(
    page: TablePage<T>,
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
        return Either::Left(view! { <p class="empty">{empty}</p> });
    }
    let paging = page.paging();
    let TablePage {
        rows, shown, total, ..
    } = page;
    let columns = choosable_columns::<T>();
    // Said once above the table, not on every row that needs it.
    let legend = T::NOTE_HINT
        .filter(|_| rows.iter().any(|r| !r.notes().is_empty()))
        .map(|hint| view! { <p class="legend">{hint}</p> });
    Either::Right(view! {
        <FilteredTable
            query
            shown
            total
            noun
            one
            paging
            data_page=T::EXPORTED_AS.map(ExportedTable::page)
            facets=T::facets()
            columns
        >
            {legend}
            <DataTable rows query class />
        </FilteredTable>
    })
}

fn header<T: TableRow>(query: Memo<TableQuery>, shown: &[usize]) -> impl IntoView + use<T> {
    shown
        .iter()
        .map(|&i| &T::COLUMNS[i])
        .map(|c| match (c.sort, c.label_hidden) {
            (Some(_), _) => {
                Either::Left(view! { <SortHeader query column=c.id label=c.label title=c.title /> })
            }
            (None, hidden) => Either::Right(view! {
                <th scope="col" title=c.title>
                    <span class:visually-hidden=hidden>{c.label}</span>
                </th>
            }),
        })
        .collect_view()
}

/// A row and the notes under it.
fn table_row<T: TableRow>(key: String, row: &T, shown: &[usize]) -> impl IntoView + use<T> {
    let line = view! { <tr class=row.mark()>{row_cells(row, shown)}</tr> };
    (
        // `data-key` too, the same for every table: the live document
        // matches rows by it when it patches the page.
        line.add_any_attr(custom_attribute(T::KEY_ATTR, key.clone()))
            .add_any_attr(custom_attribute(crate::live::markup::KEY_ATTR, key)),
        note_rows(row.notes(), shown.len(), T::NOTE_HINT),
    )
}

fn row_cells<T: TableRow>(row: &T, shown: &[usize]) -> impl IntoView + use<T> {
    shown
        .iter()
        .map(|&i| (i, &T::COLUMNS[i]))
        .map(|(i, c)| {
            let cell = (c.cell)(row);
            if T::ROW_HEADER == Some(i) {
                Either::Left(view! { <th scope="row" class=c.class>{cell}</th> })
            } else {
                // Its header again, for tables that stack on a narrow screen.
                Either::Right(view! { <td class=c.class data-label=c.label>{cell}</td> })
            }
        })
        .collect_view()
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
        let rows = [Row("a", 1), Row("b", 1), Row("a", 2), Row("a", 3)];
        assert_eq!(keys(&rows), ["a", "b", "a#2", "a#3"]);
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
