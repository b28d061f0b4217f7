//! The journal as the server runs it: the recorder's loop (observe, diff,
//! write under the lease, prune), the transitions between two reads of a
//! cluster, the attempts made through this console, and what pages ask of
//! it. The records, the store, the lease, the outbox and the since index
//! are the `llmgw_journal` crate's.

pub mod attempts;
pub mod recorder;
pub mod shared;
pub mod transitions;

pub use attempts::AttemptQueue;
pub use recorder::Recorder;
pub use shared::Journal;
