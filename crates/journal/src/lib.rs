//! The console's journal: what changed in each cluster and who changed
//! what through a console, kept in SQLite or PostgreSQL across restarts,
//! with since when each thing has been as it is.
//!
//! - What a record is: `record` (the stored row, its kinds, what "since"
//!   says), `event` (the same typed, one variant per kind), `outcome`,
//!   `sample` (the figures kept for trends). Known to the browser too.
//! - With `ssr`, the store: `store` (open, append, read, prune) over
//!   `database`, `sql` (statements numbered as bound) and `migrations`;
//!   `latest` (each thing's newest record); `leadership` and `lease` (which
//!   console records a cluster, under a term the database issues); `outbox`
//!   (what waits to be written, what was written and not answered);
//!   `trends`; `since` (the in-memory index pages read dates from).
//!
//! It knows nothing of llmgw's wire types or of the console's pages: the
//! console hands it records and reads dates back.

#![forbid(unsafe_code)]

pub mod event;
pub mod outcome;
pub mod record;
pub mod sample;

#[cfg(feature = "ssr")]
mod database;
#[cfg(feature = "ssr")]
mod latest;
#[cfg(feature = "ssr")]
pub mod leadership;
#[cfg(feature = "ssr")]
pub mod lease;
#[cfg(feature = "ssr")]
mod migrations;
#[cfg(feature = "ssr")]
pub mod outbox;
#[cfg(feature = "ssr")]
pub mod since;
#[cfg(feature = "ssr")]
mod sql;
#[cfg(feature = "ssr")]
pub mod store;
#[cfg(feature = "ssr")]
pub mod trends;

pub use outcome::Outcome;
pub use sample::Sample;

#[cfg(feature = "ssr")]
pub use migrations::NEWEST as SCHEMA_VERSION;
#[cfg(feature = "ssr")]
pub use store::{EventFilter, JournalStore, StoreError};
