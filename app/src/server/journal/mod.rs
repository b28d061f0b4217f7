//! The journal: what changed in each cluster, since when, and who did
//! what through the console, kept in a database across restarts.

pub mod attempts;
mod latest;
pub mod lease;
pub mod recorder;
pub mod shared;
pub mod since;
pub mod store;
pub mod transitions;
pub mod trends;

pub use attempts::AttemptQueue;
pub use recorder::Recorder;
pub use shared::Journal;
pub use store::{EventFilter, JournalStore, StoreError};
