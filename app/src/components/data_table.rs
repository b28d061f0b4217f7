//! One table for every list: the header and the cells come from the row
//! type's columns, and rows are keyed, so that a refresh touches only the
//! rows that changed.
//!
//! Keyed rows alone would not do: a keyed list keeps a row whose key it has
//! seen without rendering it again, so a node whose state changed would
//! keep showing the old one. Each row therefore reads its data from a
//! signal of its own, kept by key across refreshes in a [`RowSignals`]: a
//! refresh sets only the signals of rows whose data changed, and only
//! those rows patch their cells, in place. A row that stays keeps its
//! elements (and the text selected or the button focused in it) even when
//! rows before it come or go.
//!
//! For the same reason each row lives under a reactive owner of its own,
//! a child of the page's: the list is rendered again by every refresh, and
//! a kept row must outlive the render that first built it, or the effects
//! and actions in its cells (an uncordon form) would be disposed with it.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use leptos::either::Either;
use leptos::prelude::*;
use leptos::reactive::owner::{Owner, WeakOwner};
use leptos::tachys::html::attribute::custom::custom_attribute;
use leptos::tachys::reactive_graph::OwnedView;
use leptos::tachys::view::keyed::keyed;

use super::columns::{RowNote, TableRow};
use super::table::{FilteredTable, SortHeader, TablePage, TableQuery};

/// The rows on screen by key, each in a signal, kept for as long as the
/// page that owns them; made where the page is, so that its rows belong
/// to the page rather than to one render of the list.
pub struct RowSignals<T: Send + Sync + 'static> {
    rows: Arc<Mutex<HashMap<String, ArcRwSignal<T>>>>,
    // Weak: the page's owner holds this, through the closures it renders.
    page: Option<WeakOwner>,
}

impl<T: Send + Sync + 'static> Clone for RowSignals<T> {
    fn clone(&self) -> Self {
        Self {
            rows: Arc::clone(&self.rows),
            page: self.page.clone(),
        }
    }
}

impl<T: TableRow> Default for RowSignals<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: TableRow> RowSignals<T> {
    pub fn new() -> Self {
        Self {
            rows: Arc::default(),
            page: Owner::current().map(|o| o.downgrade()),
        }
    }

    /// A new row's owner: the page's child while the page lives.
    fn row_owner(&self) -> Owner {
        match self.page.as_ref().and_then(WeakOwner::upgrade) {
            Some(page) => page.child(),
            None => Owner::new(),
        }
    }

    /// Each of `rows` with its key and signal: a row seen before keeps its
    /// signal, set only if its data changed; rows no longer shown are let
    /// go. A key that repeats in the list gets a suffix, since a keyed list
    /// needs them distinct.
    fn sync(&self, rows: Vec<T>) -> Vec<(String, ArcRwSignal<T>)> {
        let mut kept = self
            .rows
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut seen = HashSet::with_capacity(rows.len());
        let mut next = HashMap::with_capacity(rows.len());
        let items = rows
            .into_iter()
            .map(|row| {
                let mut key = row.key();
                let mut n = 1;
                while seen.contains(&key) {
                    n += 1;
                    key = format!("{}#{n}", row.key());
                }
                seen.insert(key.clone());
                let signal = match kept.remove(&key) {
                    Some(signal) => {
                        if signal.with_untracked(|old| *old != row) {
                            signal.set(row);
                        }
                        signal
                    }
                    None => ArcRwSignal::new(row),
                };
                next.insert(key.clone(), signal.clone());
                (key, signal)
            })
            .collect();
        *kept = next;
        items
    }
}

/// `rows` as a table, keyed, each row read from its signal in `signals`.
#[component]
pub fn DataTable<T: TableRow>(
    rows: Vec<T>,
    signals: RowSignals<T>,
    query: Memo<TableQuery>,
    /// The table's classes (`data nodes`).
    class: &'static str,
) -> impl IntoView {
    let items = signals.sync(rows);
    let row_view = move |_, (key, row)| {
        let owner = signals.row_owner();
        (
            |_| {},
            OwnedView::new_with_owner(table_row(key, row), owner),
        )
    };
    view! {
        <table class=class>
            <thead>
                <tr>{header::<T>(query)}</tr>
            </thead>
            <tbody>
                {keyed(items, |(key, _)| key.clone(), row_view)}
            </tbody>
        </table>
    }
}

/// One page of a list, with the filter bar and the pager above it; a
/// sentence instead when the list itself is empty.
#[component]
pub fn PagedTable<T: TableRow>(
    page: TablePage<T>,
    signals: RowSignals<T>,
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
    Either::Right(view! {
        <FilteredTable query shown total noun one paging>
            <DataTable rows signals query class />
        </FilteredTable>
    })
}

fn header<T: TableRow>(query: Memo<TableQuery>) -> impl IntoView {
    T::COLUMNS
        .iter()
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

/// A row and the notes under it, each patched in place when its signal is
/// set.
fn table_row<T: TableRow>(key: String, row: ArcRwSignal<T>) -> impl IntoView {
    let (cells, mark, notes) = (row.clone(), row.clone(), row);
    let line = view! {
        <tr class=move || mark.with(T::mark)>
            {move || cells.with(row_cells)}
        </tr>
    };
    (
        line.add_any_attr(custom_attribute(T::KEY_ATTR, key)),
        move || notes.with(|r| note_rows(r.notes(), T::COLUMNS.len())),
    )
}

fn row_cells<T: TableRow>(row: &T) -> impl IntoView + use<T> {
    T::COLUMNS
        .iter()
        .enumerate()
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

fn note_rows(notes: Vec<RowNote>, colspan: usize) -> impl IntoView {
    notes
        .into_iter()
        .map(|note| {
            view! {
                <tr class=note.class>
                    <td colspan=colspan>
                        <span class=format!("badge {}", note.tone)>{note.badge}</span>
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
    use crate::components::columns::Column;
    use crate::components::sort_key::SortKey;

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
    fn a_row_keeps_its_signal_which_is_set_only_when_it_changed() {
        let _owner = Owner::new();
        let rows = RowSignals::new();
        let first = rows.sync(vec![Row("a", 1), Row("b", 1)]);
        let second = rows.sync(vec![Row("b", 2), Row("a", 1), Row("c", 1)]);
        let keys: Vec<&str> = second.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["b", "a", "c"]);
        assert_eq!(second[0].1.get_untracked(), Row("b", 2), "b's changed");
        // The signals handed out the first time are the ones the rows read.
        assert_eq!(first[1].1.get_untracked(), Row("b", 2));
        first[0].1.set(Row("a", 9));
        assert_eq!(second[1].1.get_untracked(), Row("a", 9));
        assert_eq!(rows.rows.lock().map(|m| m.len()).unwrap_or(0), 3);
        rows.sync(vec![Row("c", 1)]);
        assert_eq!(
            rows.rows.lock().map(|m| m.len()).unwrap_or(0),
            1,
            "a and b let go"
        );
    }

    #[test]
    fn repeated_keys_are_made_distinct() {
        let _owner = Owner::new();
        let rows = RowSignals::new();
        let items = rows.sync(vec![Row("a", 1), Row("a", 2), Row("a", 3)]);
        let keys: Vec<&str> = items.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["a", "a#2", "a#3"]);
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
