//! Statements whose shape depends on what they are given (a filter, a
//! batch of rows, a set of clusters): their text and their values are
//! built together, so a placeholder and the value bound to it cannot
//! part. sqlx's own `QueryBuilder` writes `?` for the `Any` driver, which
//! PostgreSQL refuses; this numbers them (`$1`), which both databases
//! read.

use std::fmt::Write;

use sqlx::Any;
use sqlx::any::AnyArguments;
use sqlx::query::Query;

/// A value to bind: the journal's columns are integers and text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Int(i64),
    Text(Option<String>),
}

impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Self::Int(v)
    }
}

impl From<String> for Value {
    fn from(v: String) -> Self {
        Self::Text(Some(v))
    }
}

impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Self::Text(Some(v.to_string()))
    }
}

impl From<Option<String>> for Value {
    fn from(v: Option<String>) -> Self {
        Self::Text(v)
    }
}

/// A statement being built.
#[derive(Clone, Debug, Default)]
pub struct Statement {
    text: String,
    values: Vec<Value>,
}

impl Statement {
    pub fn new(text: &str) -> Self {
        Self {
            text: text.to_string(),
            values: Vec::new(),
        }
    }

    /// Adds `text` as it is: SQL of the console's own, never a value.
    pub fn push(&mut self, text: &str) -> &mut Self {
        self.text.push_str(text);
        self
    }

    /// Adds a placeholder, and `value` for it.
    pub fn bind(&mut self, value: impl Into<Value>) -> &mut Self {
        self.values.push(value.into());
        let _ = write!(self.text, "${}", self.values.len());
        self
    }

    /// Adds placeholders for `values`, separated by commas.
    pub fn bind_all<V: Into<Value>>(&mut self, values: impl IntoIterator<Item = V>) -> &mut Self {
        for (i, value) in values.into_iter().enumerate() {
            if i > 0 {
                self.push(", ");
            }
            self.bind(value);
        }
        self
    }

    /// Puts `text` before the statement ("EXPLAIN QUERY PLAN ").
    #[cfg(test)]
    pub fn prefix(&mut self, text: &str) -> &mut Self {
        self.text.insert_str(0, text);
        self
    }

    #[cfg(test)]
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The statement, ready to run (and kept prepared, unless the caller
    /// says otherwise: one of many shapes, a batch's, is better not).
    pub fn query(&self) -> Query<'_, Any, AnyArguments<'_>> {
        let mut query = sqlx::query(&self.text);
        for value in &self.values {
            query = match value {
                Value::Int(v) => query.bind(*v),
                Value::Text(v) => query.bind(v.clone()),
            };
        }
        query
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_numbered_in_the_order_their_values_are_given() {
        let mut s = Statement::new("SELECT 1 FROM journal WHERE cluster = ");
        s.bind("eu").push(" AND kind IN (");
        s.bind_all(["node_state", "attempt"]).push(") LIMIT ");
        s.bind(10).prefix("EXPLAIN ");
        assert_eq!(
            s.text(),
            "EXPLAIN SELECT 1 FROM journal WHERE cluster = $1 AND kind IN ($2, $3) LIMIT $4"
        );
        assert_eq!(
            s.values,
            [
                Value::from("eu"),
                "node_state".into(),
                "attempt".into(),
                Value::Int(10)
            ]
        );
    }
}
