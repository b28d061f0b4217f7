//! Widgets shared by the pages.

pub mod badges;
pub mod columns;
pub mod copy_button;
pub mod data_table;
pub mod dialog;
pub mod error_panel;
pub mod fix_hints;
pub mod live;
pub mod live_document;
pub mod live_table;
pub mod node_actions;
pub mod nodes_table;
pub mod not_found;
pub mod receipt;
pub mod shortcuts;
pub mod sort_key;
pub mod tab_pulse;
pub mod table;
pub mod updates;

pub use badges::{StateBadge, StatusBadge};
pub use columns::{Column, RowNote, TableRow};
pub use copy_button::{CopyButton, CopyLinkButton};
pub use data_table::{DataTable, PagedTable};
pub use dialog::{ConfirmDialog, CtlCommand};
pub use error_panel::ErrorPanel;
pub use fix_hints::{FixHints, OutlookBanner};
pub use live::Live;
pub use live_table::LiveTable;
pub use node_actions::{NodeActionDialog, NodeActions, UncordonButton};
pub use nodes_table::NodesTable;
pub use not_found::NotFound;
pub use receipt::ReceiptBanner;
pub use shortcuts::Shortcuts;
pub use sort_key::SortKey;
pub use tab_pulse::TabPulse;
pub use table::{FilterBar, FilteredTable, SortHeader, TablePage, TableQuery, use_table_query};
