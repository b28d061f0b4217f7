//! The live document: how a page rendered once on the server stays current
//! in the browser for days without being rendered there.
//!
//! - On the server, one poller (`server::change_feed`) reads the cluster's
//!   lists once a period while anyone listens and pushes a
//!   [`crate::heartbeat::Heartbeat`] to every open page (`GET /updates`,
//!   server-sent events).
//! - Each page marks what it keeps current as a live part (`part`): the data
//!   and a line saying how old it is.
//! - In the browser, one island (`document`) follows the feed (`follow`), and
//!   on news reads the page again and morphs `<main>` into the fresh render
//!   (`morph`); a part the server could not read keeps its last data under the
//!   error (`stale`); a page from another build reloads (`build_reload`); the
//!   tab's title and icon carry the pushed pulse (`tab_pulse`).
//! - What a part shows when its read fails is `error_panel`; the names
//!   both sides look for are in `markup`.

pub mod document;
pub mod error_panel;
pub mod markup;
pub mod part;
pub mod tab_pulse;

#[cfg(feature = "hydrate")]
mod build_reload;
#[cfg(feature = "hydrate")]
mod countdown;
#[cfg(feature = "hydrate")]
mod follow;
#[cfg(feature = "hydrate")]
pub mod morph;
#[cfg(feature = "hydrate")]
mod stale;

pub use document::LiveDocument;
pub use error_panel::ErrorPanel;
pub use part::Live;
pub use tab_pulse::TabPulse;
