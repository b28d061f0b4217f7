//! What a table gives as data (`?format=csv`, `?format=json`): its fields,
//! each a plain value in a plain unit (seconds, GB as llmgw counts them,
//! bytes), where the page shows "3d4h" or "1.2 GB". A table's fields are
//! listed beside its columns and are not its columns: a spreadsheet wants
//! free and total GPUs apart, a screen wants "3/8".

/// One field's value in one row.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Text(String),
    Int(i64),
    Bool(bool),
    /// Not known (a dash on the page): empty in CSV, null in JSON.
    Empty,
}

impl Cell {
    /// `n`, or empty when `known` is false.
    pub fn int_if(known: bool, n: i64) -> Self {
        if known { Self::Int(n) } else { Self::Empty }
    }

    /// `s`, or empty when it is.
    pub fn text(s: &str) -> Self {
        if s.is_empty() {
            Self::Empty
        } else {
            Self::Text(s.to_string())
        }
    }

    /// Several values in one field, as `a; b`.
    pub fn list(items: &[String]) -> Self {
        Self::text(&items.join("; "))
    }
}

/// One field of a table of `T`.
pub struct Field<T> {
    /// Its name: the CSV header and the JSON key.
    pub name: &'static str,
    pub value: fn(&T) -> Cell,
}

impl<T> Field<T> {
    pub const fn new(name: &'static str, value: fn(&T) -> Cell) -> Self {
        Self { name, value }
    }
}

/// A table that can be downloaded.
pub trait Exported: super::TableRow {
    const FIELDS: &'static [Field<Self>];
}
