//! The two databases a journal is kept in, and what differs between
//! them that more than one part of the journal needs.

/// Which database holds the journal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Why the journal's database did not do what it was asked, in words a
/// page and the log can show (never with a password).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct StoreError(pub(super) String);

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        Self(e.to_string())
    }
}

/// The database's clock, in whole seconds since 1970.
pub(super) fn now(backend: Backend) -> &'static str {
    match backend {
        Backend::Sqlite => "CAST(strftime('%s', 'now') AS BIGINT)",
        Backend::Postgres => "CAST(EXTRACT(EPOCH FROM now()) AS BIGINT)",
    }
}
