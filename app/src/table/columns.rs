//! What a table is made of: its rows' key and its columns. A column says its
//! header, what it sorts by, what the filter reads in it, and how its cell
//! looks; the server sorts, filters and pages by the same list the browser
//! renders, so a column cannot sort by something it does not show.

use leptos::prelude::*;

use super::sort_key::SortKey;
use crate::dated::Dated;

/// A row as a table shows it: the value, and since when it has been so
/// where its type is dated. The filter and the sort read the value alone,
/// so a list is cut without dating the rows it leaves out.
pub type Row<T> = Dated<T, <T as TableRow>::Dates>;

/// One column of a table of `T`. Built in `const` context, so that a row
/// type's columns are one static list, not rebuilt for every row.
pub struct Column<T: TableRow> {
    /// Its name in the URL (`?sort=gpus`).
    pub id: &'static str,
    pub label: &'static str,
    /// The header's tooltip.
    pub title: Option<&'static str>,
    /// The label is for screen readers only (a column of buttons).
    pub label_hidden: bool,
    /// The cell's class (`num` aligns figures).
    pub class: Option<&'static str>,
    /// What the column sorts by; a column without one has a plain header.
    pub sort: Option<fn(&T) -> SortKey>,
    /// What the filter looks for in this column.
    pub text: Option<fn(&T) -> String>,
    /// The cell, which may say since when (a state's "for 2 h").
    pub cell: fn(&Row<T>) -> AnyView,
}

impl<T: TableRow> Column<T> {
    pub const fn new(id: &'static str, label: &'static str, cell: fn(&Row<T>) -> AnyView) -> Self {
        Self {
            id,
            label,
            title: None,
            label_hidden: false,
            class: None,
            sort: None,
            text: None,
            cell,
        }
    }

    pub const fn title(mut self, title: &'static str) -> Self {
        self.title = Some(title);
        self
    }

    pub const fn label_hidden(mut self) -> Self {
        self.label_hidden = true;
        self
    }

    pub const fn class(mut self, class: &'static str) -> Self {
        self.class = Some(class);
        self
    }

    pub const fn sort(mut self, key: fn(&T) -> SortKey) -> Self {
        self.sort = Some(key);
        self
    }

    pub const fn text(mut self, text: fn(&T) -> String) -> Self {
        self.text = Some(text);
        self
    }
}

/// A line under a row, across the whole table: an unhealthy GPU, an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowNote {
    /// The note row's class (`unhealthy`, `row-error`).
    pub class: &'static str,
    /// The badge's tone (`warn`, `bad`) and word.
    pub tone: &'static str,
    pub badge: &'static str,
    pub text: String,
}

/// A row of a table: its key, its columns, and what narrows the list.
pub trait TableRow: Clone + PartialEq + Send + Sync + 'static {
    /// Since when a row has been as it is, from the journal; `Undated` for
    /// rows nothing dates.
    type Dates: Clone
        + PartialEq
        + std::fmt::Debug
        + serde::Serialize
        + serde::de::DeserializeOwned
        + Send
        + Sync
        + 'static;

    /// The row element's attribute that carries the key (`data-node`), for
    /// links, tests and scripts that find a row by what it shows.
    const KEY_ATTR: &'static str;
    const COLUMNS: &'static [Column<Self>];
    /// The column whose cell heads the row (`<th scope="row">`), if any.
    const ROW_HEADER: Option<usize> = Some(0);
    /// The table as data (`/nodes?format=csv`), for its download links;
    /// see `export`.
    const EXPORTED_AS: Option<super::exported_table::ExportedTable> = None;
    /// What every note under a row means, said once above the table (and
    /// as each note's tooltip) rather than on every note.
    const NOTE_HINT: Option<&'static str> = None;

    /// What tells this row from every other in its list, and the same row
    /// from one refresh to the next.
    fn key(&self) -> String;

    /// The words the filter looks for: every column's text.
    fn text(&self) -> String {
        columns_text(self)
    }

    /// The sort key of `column`. Every row ties on a column the table does
    /// not have, so the list keeps its order: two tables on one page share
    /// the URL, and sorting one leaves the other as it was.
    fn sort_key(&self, column: &str) -> SortKey {
        Self::COLUMNS
            .iter()
            .find(|c| c.id == column)
            .and_then(|c| c.sort)
            .map_or(SortKey::Unknown, |key| key(self))
    }

    /// Whether the row passes a facet of the URL (`?state=ready`); a
    /// parameter the table does not know passes every row.
    fn passes(&self, _facet: &str, _value: &str) -> bool {
        true
    }

    /// The facets [`Self::passes`] knows, offered above the table: each
    /// with the values worth a click.
    fn facets() -> Vec<FacetChoice> {
        Vec::new()
    }

    /// A class that marks the row (`has-error`).
    fn mark(&self) -> Option<&'static str> {
        None
    }

    /// Lines shown under the row, which may say since when.
    fn notes(_row: &Row<Self>) -> Vec<RowNote> {
        Vec::new()
    }
}

/// One facet a table offers: its parameter, its name, and its values,
/// each with the words it is shown by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FacetChoice {
    pub param: &'static str,
    pub label: &'static str,
    pub values: Vec<(String, String)>,
}

/// Every column's text of `row`, for the filter.
pub fn columns_text<T: TableRow>(row: &T) -> String {
    let words: Vec<String> = T::COLUMNS
        .iter()
        .filter_map(|c| c.text.map(|text| text(row)))
        .collect();
    words.join(" ")
}
