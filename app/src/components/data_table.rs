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
//! under the page's: the list is rendered again by every refresh, and a
//! kept row must outlive the render that first built it, or the effects
//! and actions in its cells (an uncordon form) would be disposed with it.
//! Not straight under the page's, though: an owner keeps a link to every
//! child it ever had until it is itself cleaned up, so a page whose rows
//! come and go (paging, a sort on a moving column) grew by about 95 bytes
//! per row made, for the tab's life. Rows sit on shelves instead, and
//! shelves on racks: each takes [`PER_OWNER`] children and goes, with its
//! links, when the last of them does. The page's owner then keeps one link
//! per rack.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

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
    shelves: Arc<Mutex<Shelves>>,
}

/// Children an owner between the page's and a row's takes before the next
/// one starts. An owner lives as long as any of its children, so a row that
/// stays keeps at most this many links to rows gone at each level.
const PER_OWNER: usize = 16;

/// Levels of owners between the page's and the rows' (shelves, racks): the
/// page's owner keeps a link per `PER_OWNER ^ LEVELS` rows made, about a
/// third of a byte per row.
const LEVELS: usize = 2;

/// The owner that takes the next child at each level.
#[derive(Default)]
struct Shelves([Shelf; LEVELS]);

#[derive(Default)]
struct Shelf {
    owner: Option<Owner>,
    taken: usize,
}

impl Shelves {
    /// An owner at `level` with room for one more child; above the top
    /// level is the page's.
    fn take(&mut self, level: usize, page: &Owner) -> Owner {
        if level == LEVELS {
            return page.clone();
        }
        let shelf = &self.0[level];
        if shelf.owner.is_none() || shelf.taken >= PER_OWNER {
            let above = self.take(level + 1, page);
            let owner = above.child();
            // Held by its children, so that it goes with the last of them;
            // never the page's, which holds the rows through its views.
            if level + 1 < LEVELS {
                owner.with(|| on_cleanup(move || drop(above)));
            }
            self.0[level] = Shelf {
                owner: Some(owner),
                taken: 0,
            };
        }
        let shelf = &mut self.0[level];
        shelf.taken += 1;
        shelf.owner.clone().unwrap_or_else(|| page.clone())
    }
}

impl<T: Send + Sync + 'static> Clone for RowSignals<T> {
    fn clone(&self) -> Self {
        Self {
            rows: Arc::clone(&self.rows),
            page: self.page.clone(),
            shelves: Arc::clone(&self.shelves),
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
            shelves: Arc::default(),
        }
    }

    /// A new row's owner: on a shelf, on a rack, under the page's while the
    /// page lives.
    fn row_owner(&self) -> Owner {
        let Some(page) = self.page.as_ref().and_then(WeakOwner::upgrade) else {
            return Owner::new();
        };
        let shelf = self
            .shelves
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take(0, &page);
        let row = shelf.child();
        row.with(|| on_cleanup(move || drop(shelf)));
        row
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
        // `data-key` too, the same for every table: the live document
        // matches rows by it when it patches the page.
        line.add_any_attr(custom_attribute(T::KEY_ATTR, key.clone()))
            .add_any_attr(custom_attribute("data-key", key)),
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
    fn rows_see_the_page_and_a_shelf_goes_with_the_last_of_its_rows() {
        let page = Owner::new();
        page.with(|| {
            provide_context(42u32);
            let rows = RowSignals::<Row>::new();
            let mut made: Vec<Owner> = (0..2 * PER_OWNER).map(|_| rows.row_owner()).collect();
            assert_eq!(
                made[0].with(use_context::<u32>),
                Some(42),
                "the page's context"
            );
            let rack = made[0].parent().and_then(|shelf| shelf.parent());
            assert!(
                rack.and_then(|r| r.parent()) == Some(page.clone()),
                "on a rack"
            );
            let first = made[0].parent().expect("a shelf").downgrade();
            assert!(
                made[PER_OWNER - 1].parent() == first.upgrade(),
                "a shelf takes {PER_OWNER} rows"
            );
            let second = made[PER_OWNER].parent().expect("a shelf").downgrade();
            assert!(second.upgrade() != first.upgrade(), "then the next one");
            let last = made.remove(PER_OWNER - 1);
            made.drain(..PER_OWNER - 1);
            assert!(first.upgrade().is_some(), "one of its rows is still there");
            drop(last);
            assert!(first.upgrade().is_none(), "gone with its last row");
            assert!(second.upgrade().is_some(), "its rows are still there");
        });
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
