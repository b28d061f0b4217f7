//! What only the server has: the request's context (the admin API client,
//! settings, who is asking), the checks on what requests carry, the signed
//! confirmations and receipts, and the audit.
//! Never compiled for the browser; the server functions' own `ssr` modules
//! build on it.

pub mod admin_client;
pub mod audit;
pub mod change_feed;
pub mod clusters;
pub mod confirmations;
pub mod context;
pub mod csp;
pub mod exports;
pub mod figures_memo;
pub mod history;
pub mod input;
pub mod interned;
pub mod journal;
pub mod meters;
pub mod not_serving;
pub mod page_reads;
pub mod refusal_count;
pub mod rejection_gathering;
pub mod rejection_index;
pub mod signing;
pub mod snapshots;
pub mod substance;
pub mod wall_feed;

pub use confirmations::Confirmations;
pub use context::ConsoleContext;
