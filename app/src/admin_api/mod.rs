//! The llmgw admin API as it is sent: its wire types and its errors, shared
//! with the browser and the simulator. The server's HTTP client that calls
//! it is `server::admin_client`.

pub mod error;
pub mod types;

pub use error::AdminApiError;
