//! One page of a table as the server cut it, and where it sits in its view.

use serde::{Deserialize, Serialize};

/// Rows on one page of a table cut on the server. A screen shows a few
/// dozen; past that an operator filters or sorts rather than scrolls, and a
/// hundred rows keep a refresh cheap for the browser and the console alike.
pub const PAGE_ROWS: usize = 100;

/// One page of a table, cut on the server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TablePage<T> {
    pub rows: Vec<T>,
    /// Rows that pass the facets and the filter, on every page.
    pub shown: usize,
    /// Rows in the whole list.
    pub total: usize,
    /// The page shown, from 0.
    pub page: usize,
}

/// An empty page of any rows, not only of rows that have a default.
impl<T> Default for TablePage<T> {
    fn default() -> Self {
        Self {
            rows: Vec::new(),
            shown: 0,
            total: 0,
            page: 0,
        }
    }
}

impl<T> TablePage<T> {
    pub fn pages(&self) -> usize {
        self.shown.div_ceil(PAGE_ROWS).max(1)
    }

    /// 1-based numbers of the first and last row shown.
    fn span(&self) -> (usize, usize) {
        let first = self.page * PAGE_ROWS;
        (first + 1, first + self.rows.len())
    }
}

/// Where a page of a table cut on the server sits in its view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Paging {
    pub page: usize,
    pub pages: usize,
    pub first: usize,
    pub last: usize,
}

impl<T> TablePage<T> {
    pub fn paging(&self) -> Paging {
        let (first, last) = self.span();
        Paging {
            page: self.page,
            pages: self.pages(),
            first,
            last,
        }
    }
}
