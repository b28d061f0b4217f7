//! Server functions, one file per resource. Each is a thin wrapper: it finds
//! the request's context, checks what must be checked on the server, calls
//! the admin API client, and shapes the answer.

pub mod actions;
pub mod cluster;
pub mod nodes;
pub mod placement;
pub mod weights;
