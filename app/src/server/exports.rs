//! Every table as data: `?format=csv` or `?format=json` on a table's page
//! gives the whole list its view shows (facets, filter and sort; every
//! page, not the one on screen), read from the same shared lists as the
//! page. CSV is RFC 4180, by the `csv` crate, with cells a spreadsheet
//! would run as a formula made inert.

use std::borrow::Cow;
use std::sync::Arc;

use super::ConsoleContext;
use crate::error::ConsoleError;
use crate::table::{Cell, Exported, ExportedTable as Table, TableQuery};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Csv,
    Json,
}

impl Format {
    /// The `format=` of a query string: `None` when there is none, an
    /// error naming the choices when it is not one of them.
    pub fn of_query(query: Option<&str>) -> Option<Result<Self, String>> {
        let value = query?
            .split('&')
            .find_map(|pair| pair.strip_prefix("format="))?;
        let value = crate::urls::decode_component(value);
        Some(match value.to_ascii_lowercase().as_str() {
            "csv" => Ok(Self::Csv),
            "json" => Ok(Self::Json),
            _ => Err(format!(
                "format={} is not one the console gives; ask for format=csv or format=json",
                crate::server::audit::clipped(&value, 40)
            )),
        })
    }

    pub fn extension(self) -> &'static str {
        match self {
            Self::Csv => "csv",
            Self::Json => "json",
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            Self::Csv => "text/csv; charset=utf-8; header=present",
            Self::Json => "application/json",
        }
    }
}

/// Past this a file is refused with a sentence: the console makes every
/// answer whole, up to 16 MiB, before sending it. A 20,000-node JSON list is
/// about 5 MB; only a list of orphaned weights with thousands of paths per
/// node comes near.
pub const EXPORT_LIMIT: usize = 15 * 1024 * 1024;

/// The table's rows in its view, written as `format`.
pub async fn export(
    cx: &ConsoleContext,
    table: Table,
    query: &str,
    format: Format,
) -> Result<Vec<u8>, ConsoleError> {
    let view = TableQuery::parse(query);
    let lists = &cx.cluster.snapshots;
    let written = match table {
        Table::Nodes => write(&view, &lists.nodes().await?, format),
        Table::Models => write(&view, &lists.models().await?, format),
        Table::Replicas => write(&view, &lists.replicas().await?, format),
        Table::Weights => write(&view, &lists.orphans().await?, format),
        Table::Audit => write(&view, &Arc::new(cx.audit_records()), format),
    };
    if written.len() > EXPORT_LIMIT {
        return Err(ConsoleError::BadRequest(format!(
            "this view of {} is {} MB, more than the {} MB a download may be; narrow it with a filter",
            table.name(),
            written.len() / 1_000_000,
            EXPORT_LIMIT / 1_000_000
        )));
    }
    Ok(written)
}

fn write<T: Exported>(view: &TableQuery, rows: &Arc<Vec<T>>, format: Format) -> Vec<u8> {
    let rows = view.every_row(rows);
    match format {
        Format::Csv => csv_of(&rows),
        Format::Json => json_of(&rows),
    }
}

/// A text a spreadsheet would run (`=`, `+`, `-`, `@`, or a tab or carriage
/// return first), made plain text by a leading apostrophe, as OWASP advises
/// for CSV injection; numbers are numbers and stay as they are.
pub fn inert(text: &str) -> Cow<'_, str> {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        Cow::Owned(format!("'{text}"))
    } else {
        Cow::Borrowed(text)
    }
}

pub fn csv_of<T: Exported>(rows: &[&T]) -> Vec<u8> {
    // Every text in quotes: a spreadsheet set to split on `;` (as Excel is
    // in much of Europe) would otherwise cut "gpu;=cmd…" in two and run
    // the second half; inside quotes no separator splits a cell.
    let mut out = csv::WriterBuilder::new()
        .quote_style(csv::QuoteStyle::NonNumeric)
        .from_writer(Vec::with_capacity(rows.len() * 128));
    // Writing to memory cannot fail; a record that could not be written
    // would be a bug in the crate, not a row to lose silently.
    let names = T::FIELDS.iter().map(|f| f.name);
    out.write_record(names).expect("writes to memory");
    let mut record: Vec<String> = Vec::with_capacity(T::FIELDS.len());
    for row in rows {
        record.clear();
        record.extend(T::FIELDS.iter().map(|f| match (f.value)(row) {
            Cell::Text(s) => inert(&s).into_owned(),
            Cell::Int(n) => n.to_string(),
            Cell::Bool(b) => b.to_string(),
            Cell::Empty => String::new(),
        }));
        out.write_record(&record).expect("writes to memory");
    }
    out.into_inner().unwrap_or_default()
}

/// An array of objects, each with the fields in the table's order.
pub fn json_of<T: Exported>(rows: &[&T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(rows.len() * 160 + 2);
    out.push(b'[');
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.push(b'{');
        for (j, field) in T::FIELDS.iter().enumerate() {
            if j > 0 {
                out.push(b',');
            }
            let value = match (field.value)(row) {
                Cell::Text(s) => serde_json::Value::String(s),
                Cell::Int(n) => n.into(),
                Cell::Bool(b) => b.into(),
                Cell::Empty => serde_json::Value::Null,
            };
            // Strings and numbers always serialize.
            let _ = serde_json::to_writer(&mut out, field.name);
            out.push(b':');
            let _ = serde_json::to_writer(&mut out, &value);
        }
        out.push(b'}');
    }
    out.push(b']');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admin_api::types::NodeView;

    fn node(id: &str, unhealthy: &[&str]) -> NodeView {
        NodeView {
            id: id.into(),
            gpu_free: 2,
            gpu_total: 8,
            unhealthy: unhealthy.iter().map(|s| s.to_string()).collect(),
            ..NodeView::default()
        }
    }

    #[test]
    fn csv_quotes_by_rfc_4180_and_makes_formulas_inert() {
        let a = node(
            "=HYPERLINK(\"http://x\",\"y\")",
            &["GPU 3: Xid 79, \"fell off\"\nbus"],
        );
        let b = node("@SUM(A1)", &[]);
        let c = node("-2+3", &[]);
        let d = node("gpu;=cmd|' /C calc'!A0", &[]);
        let text = String::from_utf8(csv_of(&[&a, &b, &c, &d])).expect("utf-8");
        assert!(
            text.starts_with("\"node\",\"state\",\"gpus_free\",\"gpus_total\""),
            "{text}"
        );
        for expected in [
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"",
            "\"GPU 3: Xid 79, \"\"fell off\"\"\nbus\"",
            "\n\"'@SUM(A1)\",",
            "\n\"'-2+3\",",
            // Quoted whole: a `;` separator cannot cut it in two.
            "\n\"gpu;=cmd|' /C calc'!A0\",",
            // Figures apart, as numbers; a value not known is empty.
            ",\"\",2,8,1,",
        ] {
            assert!(text.contains(expected), "{expected} in {text}");
        }
    }

    #[test]
    fn json_keeps_types_and_the_fields_order() {
        let a = node("gpu-1", &[]);
        let json: serde_json::Value = serde_json::from_slice(&json_of(&[&a])).expect("valid JSON");
        assert_eq!(json[0]["node"], "gpu-1");
        assert_eq!(json[0]["gpus_free"], 2);
        assert_eq!(json[0]["memory_gb"], serde_json::Value::Null);
        let text = String::from_utf8(json_of(&[&a])).expect("utf-8");
        assert!(
            text.starts_with("[{\"node\":\"gpu-1\",\"state\":null,\"gpus_free\":2"),
            "{text}"
        );
    }

    #[test]
    fn formats_are_named_in_the_query_and_others_refused_by_name() {
        assert_eq!(
            Format::of_query(Some("q=a&format=csv")),
            Some(Ok(Format::Csv))
        );
        assert_eq!(
            Format::of_query(Some("format=json")),
            Some(Ok(Format::Json))
        );
        assert_eq!(Format::of_query(Some("q=a")), None);
        assert!(Format::of_query(Some("format=xlsx")).is_some_and(|f| f.is_err()));
    }
}
