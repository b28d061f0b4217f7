//! Widgets shared by the pages.

pub mod error_panel;
pub mod live;

pub use error_panel::ErrorPanel;
pub use live::{Live, refresh_ticker};
