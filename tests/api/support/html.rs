//! Reading a rendered page by its structure: a row by its key, a cell by its
//! column's header, an element by a selector. A test that looks for text
//! anywhere in the HTML passes when the text lands in the wrong place.

use scraper::{ElementRef, Html, Selector};

pub struct Page(Html);

fn selector(css: &str) -> Selector {
    Selector::parse(css).unwrap_or_else(|e| panic!("bad selector {css:?}: {e}"))
}

/// An element's text, with whitespace folded as a reader sees it.
pub fn text(element: ElementRef<'_>) -> String {
    element
        .text()
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

impl Page {
    pub fn parse(html: &str) -> Self {
        Self(Html::parse_document(html))
    }

    /// Every element matching `css`.
    pub fn all(&self, css: &str) -> Vec<ElementRef<'_>> {
        self.0.select(&selector(css)).collect()
    }

    /// The one element matching `css`; fails when there is none.
    pub fn one(&self, css: &str) -> ElementRef<'_> {
        self.0
            .select(&selector(css))
            .next()
            .unwrap_or_else(|| panic!("nothing matches {css:?}"))
    }

    pub fn has(&self, css: &str) -> bool {
        self.0.select(&selector(css)).next().is_some()
    }

    /// The text of the one element matching `css`.
    pub fn text(&self, css: &str) -> String {
        text(self.one(css))
    }

    /// The texts of every element matching `css`, in document order.
    pub fn texts(&self, css: &str) -> Vec<String> {
        self.all(css).into_iter().map(text).collect()
    }

    /// Every `href` of links matching `css`.
    pub fn hrefs(&self, css: &str) -> Vec<String> {
        self.all(css)
            .into_iter()
            .filter_map(|a| a.value().attr("href").map(str::to_string))
            .collect()
    }

    /// The text of the cell in `row` under the column headed `column`, in the
    /// table that holds the row.
    pub fn cell(&self, row: ElementRef<'_>, column: &str) -> String {
        let table = row
            .ancestors()
            .filter_map(ElementRef::wrap)
            .find(|e| e.value().name() == "table")
            .expect("the row is in a table");
        let headers: Vec<String> = table.select(&selector("thead th")).map(text).collect();
        let index = headers
            .iter()
            .position(|h| h.trim_end_matches([' ', '▲', '▼']) == column)
            .unwrap_or_else(|| panic!("no column {column:?} in {headers:?}"));
        let cells: Vec<ElementRef<'_>> = row
            .children()
            .filter_map(ElementRef::wrap)
            .filter(|c| matches!(c.value().name(), "td" | "th"))
            .collect();
        text(cells[index])
    }

    /// The row whose `attribute` is `value` (`data-node`, `data-replica`...).
    pub fn row(&self, attribute: &str, value: &str) -> ElementRef<'_> {
        self.0
            .select(&selector(&format!("tr[{attribute}]")))
            .find(|r| r.value().attr(attribute) == Some(value))
            .unwrap_or_else(|| panic!("no row with {attribute}={value:?}"))
    }

    /// The keys (`attribute`'s values) of the rows, in the order shown.
    pub fn row_keys(&self, attribute: &str) -> Vec<String> {
        self.all(&format!("tr[{attribute}]"))
            .into_iter()
            .filter_map(|r| r.value().attr(attribute).map(str::to_string))
            .collect()
    }
}
