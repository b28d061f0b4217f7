//! Server functions, one file per resource. Each file opens with the types
//! its functions answer with; each `#[server]` function is one line that
//! calls into the file's server-only `ssr` module, which finds the request's
//! context, checks what must be checked on the server, calls the admin API
//! client and shapes the answer.

pub mod cluster;
pub mod nodes;
pub mod placement;
pub mod receipts;
pub mod weights;
