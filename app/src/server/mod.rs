//! What only the server has: the request's context (the admin API client,
//! settings, who is asking), the checks on what requests carry, and the
//! one-time confirmations of collections.
//! Never compiled for the browser; the server functions' own `ssr` modules
//! build on it.

pub mod confirmations;
pub mod context;
pub mod input;

pub use confirmations::Confirmations;
pub use context::ConsoleContext;
