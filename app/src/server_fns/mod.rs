//! Server functions, one file per resource. Each is a thin wrapper: it finds
//! the request's context, calls the admin API client, and shapes the answer.

pub mod nodes;
