//! What a call to a server function is, for the request pipeline: a read,
//! an attempt at a change (audited, with the fields the function takes), or
//! no function of this build at all. A function is a read only when it is
//! listed in `server_fns::READS`; every other function of this build is an
//! attempt, so one added tomorrow is audited without anyone listing it, and
//! listed in [`CHANGES`] it is audited with its fields (a test fails until
//! it is).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::LazyLock;

use leptos::server_fn::ServerFn;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::server::audit::{VALUE_LIMIT, clipped};

/// Where Leptos mounts server functions.
pub const SERVER_FN_PREFIX: &str = "/api/";

/// A change, and how to read the fields it takes from a form.
pub struct ChangeFn {
    pub path: &'static str,
    read: fn(&[u8]) -> Option<BTreeMap<String, Value>>,
}

/// The entry for the server function `T`: its form is read into `T`'s own
/// arguments, so a record holds those fields and no others.
pub fn change<T>() -> ChangeFn
where
    T: ServerFn + Serialize + DeserializeOwned,
{
    ChangeFn {
        path: T::PATH,
        read: |body| {
            let args: T = serde_urlencoded::from_bytes(body).ok()?;
            match serde_json::to_value(args).ok()? {
                Value::Object(map) => Some(map.into_iter().collect()),
                _ => None,
            }
        },
    }
}

/// The paths of this build's server functions, every one of them: they
/// register themselves, so one added later is in without being listed.
static SERVER_FNS: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    leptos::server_fn::axum::server_fn_paths()
        .map(|(path, _)| path)
        .collect()
});

/// The changes, each with the arguments its form is read into.
static CHANGES: LazyLock<HashMap<&'static str, ChangeFn>> = LazyLock::new(|| {
    use super::{nodes, weights};
    [
        change::<nodes::SetNodeState>(),
        change::<weights::PreviewCollect>(),
        change::<weights::CollectWeights>(),
    ]
    .into_iter()
    .map(|c| (c.path, c))
    .collect()
});

/// A request's path, as the pipeline tells calls apart.
pub enum Call {
    /// Not a server function: a page, the change stream, a file.
    Page,
    /// A function that only reads.
    Read,
    /// A path under the functions' prefix that this build does not have: a
    /// tab of an older build still calls a read that was since removed, and
    /// recording it would move the change feed and make that tab call it
    /// again every period.
    Unknown,
    /// An attempt at a change, named by its function.
    Change {
        action: &'static str,
        fields: Option<&'static ChangeFn>,
    },
}

impl Call {
    pub fn of(path: &str) -> Self {
        let Some(name) = path.strip_prefix(SERVER_FN_PREFIX) else {
            return Self::Page;
        };
        let Some(registered) = SERVER_FNS.get(path) else {
            return Self::Unknown;
        };
        if super::is_read(name) {
            return Self::Read;
        }
        Self::Change {
            action: &registered[SERVER_FN_PREFIX.len()..],
            fields: CHANGES.get(path),
        }
    }

    pub fn is_function(&self) -> bool {
        !matches!(self, Self::Page)
    }
}

/// Every function of this build that is neither a listed read nor a
/// listed change: each is audited, without its fields.
pub fn unlisted() -> Vec<&'static str> {
    SERVER_FNS
        .iter()
        .copied()
        .filter(|path| matches!(Call::of(path), Call::Change { fields: None, .. }))
        .collect()
}

impl ChangeFn {
    /// The arguments `body` carries for this function, as they are;
    /// `None` when the form is not this function's.
    pub fn read(&self, body: &[u8]) -> Option<BTreeMap<String, Value>> {
        (self.read)(body)
    }
}

/// A call's arguments as the audit keeps them: each cut short, a
/// confirmation token to its first characters (the record says one was
/// sent, not what it was).
pub fn for_the_record(fields: BTreeMap<String, Value>) -> BTreeMap<String, Value> {
    fields
        .into_iter()
        .map(|(key, value)| {
            let value = match value {
                Value::String(s) if key == "token" && s.chars().count() > 12 => {
                    Value::String(clipped(&s, 12))
                }
                Value::String(s) => Value::String(clipped(&s, VALUE_LIMIT)),
                other => other,
            };
            (key, value)
        })
        .collect()
}
