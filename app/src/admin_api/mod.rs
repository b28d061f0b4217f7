//! The llmgw admin API: its wire types and its errors (shared with the
//! browser and the simulator) and, on the server only, the HTTP client that
//! calls it.

pub mod error;
pub mod types;

#[cfg(feature = "ssr")]
pub mod actor;
#[cfg(feature = "ssr")]
pub mod address;
#[cfg(feature = "ssr")]
pub mod client;

#[cfg(feature = "ssr")]
pub use actor::{Actor, ChangeAuthorized, ChangePermitted, ChangePolicy, Identity};
#[cfg(feature = "ssr")]
pub use client::AdminApiClient;
pub use error::AdminApiError;
