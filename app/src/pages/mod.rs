//! One file per page.

pub mod nodes;
pub mod not_found;

pub use nodes::NodesPage;
pub use not_found::NotFound;
