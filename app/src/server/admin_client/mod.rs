//! The server's HTTP client of the llmgw admin API, and who each call is
//! made for: a changing call takes the proof that it is permitted and that
//! its audit record is written.

pub mod actor;
pub mod address;
pub mod client;

pub use actor::{Actor, ChangeAuthorized, ChangePermitted, ChangePolicy, Identity};
pub use client::AdminApiClient;
