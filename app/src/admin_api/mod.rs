//! The llmgw admin API: its wire types (shared with the browser and the
//! simulator) and, on the server only, the HTTP client that calls it.

pub mod types;

#[cfg(feature = "ssr")]
pub mod address;
#[cfg(feature = "ssr")]
pub mod client;
#[cfg(feature = "ssr")]
pub mod error;

#[cfg(feature = "ssr")]
pub use client::{Actor, AdminApiClient};
#[cfg(feature = "ssr")]
pub use error::AdminApiError;
