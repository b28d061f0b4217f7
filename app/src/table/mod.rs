//! The table model, shared by the server functions that cut a list and the
//! components that show it: the view in the URL (`query`), one page of rows
//! (`page`), what a table is made of (`columns`), what it gives as data
//! (`export`) and the order it sorts in (`sort_key`).
//!
//! The lists that grow with the cluster (nodes, models, replicas) are cut on
//! the server: the page's server function takes the query and answers with
//! one [`TablePage`], so that neither the HTML, nor each refresh, nor the
//! browser's work grows past [`PAGE_ROWS`] rows.

pub mod columns;
pub mod export;
pub mod exported_table;
pub mod page;
pub mod query;
pub mod sort_key;

pub use columns::{Column, FacetChoice, Row, RowNote, TableRow, columns_text};
pub use export::{Cell, Exported, Field};
pub use exported_table::ExportedTable;
pub use page::{PAGE_ROWS, Paging, TablePage};
pub use query::{TableQuery, use_table_query};
pub use sort_key::SortKey;
