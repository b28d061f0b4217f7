//! The journal: what changed in each cluster, since when, and who did
//! what through the console, kept in a database across restarts.

pub mod attempts;
mod database;
mod latest;
pub mod leadership;
pub mod lease;
mod migrations;
mod outbox;
pub mod recorder;
pub mod shared;
pub mod since;
mod sql;
pub mod store;
pub mod transitions;
pub mod trends;

pub use attempts::AttemptQueue;
pub use migrations::NEWEST as SCHEMA_VERSION;
pub use recorder::Recorder;
pub use shared::Journal;
pub use store::{EventFilter, JournalStore, StoreError};
