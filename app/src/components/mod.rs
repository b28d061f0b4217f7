//! Widgets shared by the pages.

pub mod badges;
pub mod cluster_switch;
pub mod collect_review;
pub mod copy_button;
pub mod data_table;
pub mod dialog;
pub mod event_table;
pub mod fix_hints;
pub mod gpu_strip;
pub mod live_table;
pub mod named_heading;
pub mod node_actions;
pub mod not_found;
pub mod receipt;
pub mod shortcuts;
pub mod table_controls;
pub mod team_links;

pub use badges::{DrainDone, SinceNote, StateBadge, StatusBadge};
pub use cluster_switch::{AlsoIn, ClusterBadge, ClusterSwitch};
pub use collect_review::ReviewButton;
pub use copy_button::{CopyButton, CopyLinkButton};
pub use data_table::{DataTable, PagedTable};
pub use dialog::{ConfirmDialog, CtlCommand};
pub use event_table::{EventTable, History};
pub use fix_hints::{FixHints, OutlookBanner};
pub use gpu_strip::GpuStrip;
pub use live_table::LiveTable;
pub use named_heading::{Known, NamedHeading};
pub use node_actions::{NodeActionDialog, NodeActions, UncordonButton};
pub use not_found::NotFound;
pub use receipt::ReceiptBanner;
pub use shortcuts::Shortcuts;
pub use table_controls::{FilterBar, FilteredTable, SortHeader};
pub use team_links::TeamLinks;
