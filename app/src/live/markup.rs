//! The names the server's markup and the browser's code agree on. The
//! server's views write them, the live document looks for them; a name
//! written as a literal in two places could drift apart silently, so both
//! sides take it from here. (The stylesheet repeats the class names: CSS
//! cannot read Rust.)

/// What a table's row is known by across renders: the morph matches rows by
/// it, so a row that stays keeps its elements.
pub const KEY_ATTR: &str = "data-key";

/// A part of a page the live document keeps current: its data, or the error
/// in its place.
pub const PART_CLASS: &str = "live";
/// The line in a part that says how old its data is.
pub const STATUS_CLASS: &str = "live-status";
/// The server's account of what failed (`ErrorPanel`).
pub const ERROR_PANEL_CLASS: &str = "error-panel";
/// Over a part's last good data while refreshing it fails.
pub const STALE_BANNER_CLASS: &str = "stale-banner";
pub const STALE_NOTE_CLASS: &str = "stale-note";
pub const STALE_DATA_CLASS: &str = "stale-data";
/// On a status line while its part is stale.
pub const STALE_CLASS: &str = "stale";
/// On a status line the server rendered stale: how old its data is, and
/// for how long reads have failed, in seconds; where the browser starts
/// counting from.
pub const AGE_ATTR: &str = "data-age";
pub const FAILING_ATTR: &str = "data-failing";

/// The row the keyboard reached (`shortcuts`).
pub const KBD_CURRENT_ATTR: &str = "data-kbd-current";
/// The wall's panel on screen (`pages/wall`).
pub const WALL_SHOWN_ATTR: &str = "data-shown";
/// Attributes an island owns once it runs: the server's render of them is
/// only their first value, and a patch leaves them alone.
pub const CLIENT_ATTRS: [&str; 2] = [KBD_CURRENT_ATTR, WALL_SHOWN_ATTR];

/// The element Leptos wraps each island in, and where it names the island.
pub const ISLAND_TAG: &str = "leptos-island";
pub const ISLAND_PROPS_ATTR: &str = "data-props";
pub const ISLAND_NAME_ATTR: &str = "data-component";

/// Set on `<html>` once every island of the page runs, so that tests (and
/// anyone reading the DOM) can tell when clicks reach Leptos.
pub const ISLANDS_READY_ATTR: &str = "data-islands-ready";

/// The `<link rel="icon">` the shell writes, which the pulse repoints.
pub const ICON_ID: &str = "tab-icon";
