//! One table's view as its URL says it (`?q=`, `?sort=`, `?desc=1`,
//! `?page=`, and facets), so that a reload or a pasted link shows the same
//! rows in the same order; and the server's cut of a list by that view.
//! The filter is bounded here, whatever the URL says.

use std::cmp::Reverse;

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;
use leptos_router::params::ParamsMap;

use super::columns::{Row, TableRow};
use super::page::{PAGE_ROWS, TablePage};
use super::sort_key::SortKey;
use crate::urls::{self, decode_component, encode_query};

/// A filter of more words than this is no narrower for it, only slower.
pub const FILTER_WORDS: usize = 16;

/// No name a filter looks for is longer.
pub const FILTER_WORD_CHARS: usize = 64;

/// A facet's value is a state, a status or a model's name.
const FACET_VALUE_LIMIT: usize = 256;

/// No table has more columns than this, nor a column a longer id: what a
/// crafted `?cols=` can make every link of a page carry.
const COLUMNS_LIMIT: usize = 24;
const COLUMN_ID_CHARS: usize = 32;

/// The filter as the table applies it: its distinct words (a word repeated
/// narrows nothing), at most [`FILTER_WORDS`] of at most
/// [`FILTER_WORD_CHARS`] characters, so that the cost of a filter and the
/// size of every link that carries it are bounded whatever the URL says.
fn bounded_filter(text: &str) -> String {
    let mut kept: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        let word: String = word.chars().take(FILTER_WORD_CHARS).collect();
        if !kept.iter().any(|k| k.to_lowercase() == word.to_lowercase()) {
            kept.push(word);
        }
        if kept.len() == FILTER_WORDS {
            break;
        }
    }
    kept.join(" ")
}

/// One table's view settings, as read from the URL.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableQuery {
    /// Words that must all appear in a row (case-insensitive).
    pub q: String,
    pub sort: Option<String>,
    pub desc: bool,
    /// Which page of [`PAGE_ROWS`] rows, from 0 (`?page=` counts from 1).
    pub page: usize,
    /// Every other parameter, kept when sorting or filtering changes.
    pub rest: Vec<(String, String)>,
    /// Rows as dense as they go (`?compact=1`).
    pub compact: bool,
    /// The columns shown (`?cols=node,state`), if the operator chose: the
    /// column that names the row is always shown.
    pub cols: Option<Vec<String>>,
}

impl TableQuery {
    pub fn from_params(params: &ParamsMap) -> Self {
        Self::from_pairs(
            params
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string())),
        )
    }

    /// Reads a query string (`a=1&b=2`, without its `?`), as the server
    /// functions of paged tables receive it.
    pub fn parse(query: &str) -> Self {
        Self::from_pairs(query.split('&').filter(|p| !p.is_empty()).map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let plus = |s: &str| decode_component(&s.replace('+', " "));
            (plus(k), plus(v))
        }))
    }

    fn from_pairs(pairs: impl Iterator<Item = (String, String)>) -> Self {
        let mut query = Self::default();
        for (key, value) in pairs {
            match key.as_str() {
                "q" => query.q = bounded_filter(&value),
                "sort" => query.sort = Some(value).filter(|s| !s.is_empty()),
                "desc" => query.desc = value == "1",
                "page" => query.page = value.trim().parse::<usize>().unwrap_or(1).saturating_sub(1),
                "compact" => query.compact = value == "1",
                // The chooser's form sends one `cols` per box ticked (and an
                // empty one, so that ticking none still says so); links
                // carry them as one list.
                "cols" => {
                    let cols = query.cols.get_or_insert_with(Vec::new);
                    for id in value.split(',').map(str::trim).filter(|c| !c.is_empty()) {
                        let id: String = id.chars().take(COLUMN_ID_CHARS).collect();
                        if cols.len() < COLUMNS_LIMIT && !cols.contains(&id) {
                            cols.push(id);
                        }
                    }
                }
                // One-shot parameters never survive a change of view.
                one_shot if urls::is_one_shot(one_shot) => {}
                // A facet once (its last value, as every parameter), a
                // name at most; any other parameter is dropped rather than
                // copied into every link of the page.
                facet if urls::is_facet(facet) => {
                    let value = value.chars().take(FACET_VALUE_LIMIT).collect();
                    query.rest.retain(|(k, _)| *k != key);
                    query.rest.push((key, value));
                }
                _ => {}
            }
        }
        query
    }

    /// The facets and the filter, as query pairs.
    fn filter_pairs(&self) -> Vec<(String, String)> {
        let mut pairs = self.rest.clone();
        if !self.q.is_empty() {
            pairs.push(("q".into(), self.q.clone()));
        }
        pairs
    }

    /// `pairs` sorted by `column`, descending or not.
    fn sorted(mut pairs: Vec<(String, String)>, column: &str, desc: bool) -> Vec<(String, String)> {
        pairs.push(("sort".into(), column.into()));
        if desc {
            pairs.push(("desc".into(), "1".into()));
        }
        pairs
    }

    /// Every setting but the page, as query pairs: a new sort or filter
    /// starts again at the first page.
    fn view_pairs(&self) -> Vec<(String, String)> {
        let mut pairs = match &self.sort {
            Some(column) => Self::sorted(self.filter_pairs(), column, self.desc),
            None => self.filter_pairs(),
        };
        pairs.extend(self.layout_pairs());
        pairs
    }

    /// How the table is laid out: its density and its columns.
    fn layout_pairs(&self) -> Vec<(String, String)> {
        let mut pairs = Vec::new();
        if self.compact {
            pairs.push(("compact".into(), "1".into()));
        }
        if let Some(cols) = &self.cols {
            pairs.push(("cols".into(), cols.join(",")));
        }
        pairs
    }

    /// Whether the column `id` is shown.
    pub fn shows(&self, id: &str) -> bool {
        self.cols
            .as_ref()
            .is_none_or(|cols| cols.iter().any(|c| c == id))
    }

    /// The link to this view, dense or not.
    pub fn compact_href(&self, compact: bool) -> String {
        let next = Self {
            compact,
            ..self.clone()
        };
        format!("?{}", next.with_page(self.page))
    }

    /// The hidden fields of the column chooser's form: the view, less its
    /// columns, which the form's boxes say.
    pub fn columns_form_fields(&self) -> Vec<(String, String)> {
        let mut pairs = self.view_pairs();
        pairs.retain(|(k, _)| k != "cols");
        pairs
    }

    /// The link to this view with every column.
    pub fn every_column_href(&self) -> String {
        let next = Self {
            cols: None,
            ..self.clone()
        };
        format!("?{}", next.with_page(self.page))
    }

    /// The query string (without `?`) that shows `page` of this view.
    fn with_page(&self, page: usize) -> String {
        let mut pairs = self.view_pairs();
        if page > 0 {
            pairs.push(("page".into(), (page + 1).to_string()));
        }
        encode_query(&pairs)
    }

    /// What a paged table's server function is given: the whole view.
    pub fn to_query(&self) -> String {
        self.with_page(self.page)
    }

    /// The link to another page of the same view.
    pub fn page_href(&self, page: usize) -> String {
        format!("?{}", self.with_page(page))
    }

    /// The link to this view's every row as data (`format` is `csv` or
    /// `json`) from `page`, the page that gives the table.
    pub fn data_href(&self, page: &str, format: &str) -> String {
        let mut pairs = self.view_pairs();
        pairs.push(("format".into(), format.into()));
        format!("{}?{}", urls::scoped(page), encode_query(&pairs))
    }

    /// The link a column header points to: sort by it, or flip the order if
    /// it is already the sort column.
    pub fn sort_href(&self, column: &str) -> String {
        let desc = self.sort.as_deref() == Some(column) && !self.desc;
        let mut pairs = Self::sorted(self.filter_pairs(), column, desc);
        pairs.extend(self.layout_pairs());
        format!("?{}", encode_query(&pairs))
    }

    /// The link to this view with `param` set to `value`, or without it
    /// (`None`; for `q`, without the filter's words), from its first page.
    pub fn facet_href(&self, param: &str, value: Option<&str>) -> String {
        let mut next = self.clone();
        next.page = 0;
        if param == "q" {
            next.q = value.unwrap_or_default().to_string();
        } else {
            next.rest.retain(|(k, _)| k != param);
            if let Some(value) = value {
                next.rest.push((param.to_string(), value.to_string()));
            }
        }
        format!("?{}", next.with_page(0))
    }

    /// The value of facet `param` this view applies.
    pub fn facet(&self, param: &str) -> Option<&str> {
        self.rest
            .iter()
            .find(|(k, _)| k == param)
            .map(|(_, v)| v.as_str())
    }

    /// What narrows this view, each shown as a chip that removes it: its
    /// facets (not `group`, which lays the page out) and its filter.
    pub fn narrowed_by(&self) -> Vec<(String, String)> {
        let mut applied: Vec<(String, String)> = self
            .rest
            .iter()
            .filter(|(k, _)| k != "group")
            .cloned()
            .collect();
        if !self.q.is_empty() {
            applied.push(("q".into(), self.q.clone()));
        }
        applied
    }

    /// This view with nothing narrowing it: its sort and layout only.
    pub fn unnarrowed_href(&self) -> String {
        let mut next = self.clone();
        next.page = 0;
        next.q.clear();
        next.rest.retain(|(k, _)| k == "group");
        format!("?{}", next.with_page(0))
    }

    /// The hidden fields of the filter form: the view, less the filter
    /// itself and the page.
    pub fn filter_form_fields(&self) -> Vec<(String, String)> {
        let mut pairs = self.view_pairs();
        pairs.retain(|(k, _)| k != "q");
        pairs
    }

    /// `aria-sort` for a column header.
    pub fn aria_sort(&self, column: &str) -> &'static str {
        match (self.sort.as_deref() == Some(column), self.desc) {
            (false, _) => "none",
            (true, false) => "ascending",
            (true, true) => "descending",
        }
    }

    /// Whether a row whose text is `haystack` passes the filter.
    pub fn matches(&self, haystack: &str) -> bool {
        has_every(&self.words(), haystack)
    }

    /// The filter's words, lower-cased once for every row they are sought in.
    fn words(&self) -> Vec<String> {
        self.q.split_whitespace().map(str::to_lowercase).collect()
    }

    /// The rows that pass the filter, in the order the URL says. Each row's
    /// text and sort key is worked out once, and not at all when there is no
    /// filter or no sort.
    fn select<'a, T: TableRow>(&self, rows: impl Iterator<Item = &'a T>) -> Vec<&'a T> {
        let words = self.words();
        let mut rows: Vec<&T> = if words.is_empty() {
            rows.collect()
        } else {
            rows.filter(|r| has_every(&words, &r.text())).collect()
        };
        if let Some(column) = &self.sort {
            // Stable either way: rows that tie keep the list's order. A
            // value not known (a dash) is last both ways, as in a
            // spreadsheet: descending is about the values there are.
            if self.desc {
                rows.sort_by_cached_key(|r| {
                    let key = r.sort_key(column);
                    (key == SortKey::Unknown, Reverse(key))
                });
            } else {
                rows.sort_by_cached_key(|r| r.sort_key(column));
            }
        }
        rows
    }

    /// Filters and sorts `rows`, the way the URL says, all on one page (for
    /// the short lists of one node or one model).
    pub fn apply<T: TableRow>(&self, rows: Vec<T>) -> Vec<T> {
        self.select(rows.iter()).into_iter().cloned().collect()
    }

    /// Every row of `rows` this view shows, on every page: after the
    /// facets (`rest`), the filter and the sort.
    pub fn every_row<'a, T: TableRow>(&self, rows: &'a [T]) -> Vec<&'a T> {
        let faceted = rows
            .iter()
            .filter(|r| self.rest.iter().all(|(k, v)| r.passes(k, v)));
        self.select(faceted)
    }

    /// The page of `rows` this view shows, after the facets (`rest`), the
    /// filter and the sort. A page past the end shows the last one. Only
    /// the page's rows are copied, and they come undated: the server dates
    /// a hundred rows, not the cluster's list.
    pub fn page_of<T: TableRow>(&self, rows: &[T]) -> TablePage<Row<T>> {
        let picked = self.every_row(rows);
        let pages = picked.len().div_ceil(PAGE_ROWS).max(1);
        let page = self.page.min(pages - 1);
        let first = page * PAGE_ROWS;
        TablePage {
            rows: picked
                .iter()
                .skip(first)
                .take(PAGE_ROWS)
                .map(|r| Row::<T>::undated((*r).clone()))
                .collect(),
            shown: picked.len(),
            total: rows.len(),
            page,
        }
    }
}

/// Whether `haystack` contains every one of `words` (lower-case), in any case.
fn has_every(words: &[String], haystack: &str) -> bool {
    let haystack = haystack.to_lowercase();
    words.iter().all(|word| haystack.contains(word.as_str()))
}

/// The current URL's table settings, reactively.
pub fn use_table_query() -> Memo<TableQuery> {
    let params = use_query_map();
    Memo::new(move |_| params.with(TableQuery::from_params))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Paging;
    use crate::table::columns::Column;
    use crate::table::sort_key::SortKey;

    #[test]
    fn words_must_all_appear() {
        let q = TableQuery {
            q: "H100 ready".into(),
            ..Default::default()
        };
        assert!(q.matches("gpu-h100-01 ready 8/8"));
        assert!(!q.matches("gpu-h100-04 cordoned"));
        assert!(TableQuery::default().matches("anything"));
    }

    #[test]
    fn sort_links_flip_and_keep_the_filter() {
        let q = TableQuery {
            q: "a b".into(),
            sort: Some("gpus".into()),
            desc: false,
            page: 3,
            rest: vec![("state".into(), "ready".into())],
            ..TableQuery::default()
        };
        assert_eq!(q.sort_href("gpus"), "?state=ready&q=a%20b&sort=gpus&desc=1");
        assert_eq!(q.sort_href("node"), "?state=ready&q=a%20b&sort=node");
    }

    #[derive(Clone, Debug, PartialEq)]
    struct Row(String, i64);

    impl TableRow for Row {
        type Dates = crate::dated::Undated;
        const KEY_ATTR: &'static str = "data-row";
        const COLUMNS: &'static [Column<Self>] = &[
            Column::<Self>::new("name", "Name", |r| r.0.clone().into_any())
                .sort(|r| SortKey::Text(r.0.clone()))
                .text(|r| r.0.clone()),
            Column::<Self>::new("n", "N", |r| r.1.into_any()).sort(|r| SortKey::Num(r.1)),
            // Known for even numbers only.
            Column::<Self>::new("even", "Even", |r| r.1.into_any())
                .sort(|r| SortKey::num_if(r.1 % 2 == 0, r.1)),
        ];

        fn key(&self) -> String {
            self.0.clone()
        }

        fn passes(&self, facet: &str, value: &str) -> bool {
            facet != "errors" || (self.1 % 2 == 1) == (value == "1")
        }
    }

    fn rows(n: i64) -> Vec<Row> {
        (0..n).map(|i| Row(format!("gpu-{i}"), i)).collect()
    }

    #[test]
    fn values_not_known_sort_last_in_either_direction() {
        let names = |query: &str| -> Vec<i64> {
            TableQuery::parse(query)
                .apply(rows(5))
                .into_iter()
                .map(|r| r.1)
                .collect()
        };
        assert_eq!(names("sort=even"), vec![0, 2, 4, 1, 3]);
        assert_eq!(names("sort=even&desc=1"), vec![4, 2, 0, 1, 3]);
    }

    #[test]
    fn the_server_cuts_one_page_after_facets_filter_and_sort() {
        let all = rows(250);
        let q = TableQuery::parse("errors=1&sort=n&desc=1&page=2");
        let page = q.page_of(&all);
        assert_eq!(
            (page.total, page.shown, page.page, page.pages()),
            (250, 125, 1, 2)
        );
        assert_eq!(page.rows.len(), 25);
        // Odd numbers from 249 down: the second page starts at the 101st.
        assert_eq!(page.rows[0].row, Row("gpu-49".into(), 49));
        assert_eq!(
            page.paging(),
            Paging {
                page: 1,
                pages: 2,
                first: 101,
                last: 125
            }
        );

        let filtered = TableQuery::parse("q=GPU-24").page_of(&all);
        assert_eq!(filtered.shown, 11, "gpu-24 and gpu-240 to gpu-249");
        assert_eq!(filtered.rows[0].0, "gpu-24");
    }

    #[test]
    fn a_page_past_the_end_shows_the_last_and_nonsense_the_first() {
        let all = rows(150);
        assert_eq!(TableQuery::parse("page=99").page_of(&all).page, 1);
        assert_eq!(TableQuery::parse("page=x").page_of(&all).page, 0);
        assert_eq!(TableQuery::parse("page=0").page_of(&all).page, 0);
        let empty = TableQuery::parse("q=nothing").page_of(&all);
        assert_eq!((empty.shown, empty.page, empty.pages()), (0, 0, 1));
    }

    #[test]
    fn page_links_keep_the_view_and_a_new_view_starts_at_page_one() {
        let q = TableQuery::parse("state=ready&q=a+b&sort=gpus&page=3&receipt=r1");
        assert_eq!(q.page, 2);
        assert_eq!(q.to_query(), "state=ready&q=a%20b&sort=gpus&page=3");
        assert_eq!(q.page_href(0), "?state=ready&q=a%20b&sort=gpus");
        assert_eq!(q.page_href(3), "?state=ready&q=a%20b&sort=gpus&page=4");
        assert!(!q.sort_href("node").contains("page"));
        assert!(
            q.filter_form_fields()
                .iter()
                .all(|(k, _)| k != "page" && k != "q")
        );
    }

    #[test]
    fn density_and_columns_are_kept_by_every_link_of_the_view() {
        let q =
            TableQuery::parse("cols=node&cols=state,gpus&cols=&compact=1&state=ready&sort=gpus");
        assert!(q.compact);
        assert_eq!(
            q.cols.as_deref(),
            Some(&["node".to_string(), "state".into(), "gpus".into()][..])
        );
        assert!(q.shows("gpus") && !q.shows("disk"));
        for href in [
            q.sort_href("node"),
            q.page_href(2),
            q.facet_href("state", None),
            q.unnarrowed_href(),
        ] {
            assert!(
                href.contains("compact=1") && href.contains("cols=node%2Cstate%2Cgpus"),
                "{href}"
            );
        }
        assert!(!q.compact_href(false).contains("compact"));
        assert!(
            q.every_column_href().contains("compact=1") && !q.every_column_href().contains("cols")
        );
        // Ticking no box shows only the column that names the row.
        let none = TableQuery::parse("cols=");
        assert_eq!(none.cols, Some(vec![]));
        assert!(!none.shows("state"));
        // A crafted list is cut.
        let long = format!(
            "cols={}",
            (0..500)
                .map(|i| format!("c{i}{}", "x".repeat(100)))
                .collect::<Vec<_>>()
                .join(",")
        );
        let q = TableQuery::parse(&long);
        assert_eq!(q.cols.as_ref().map(Vec::len), Some(COLUMNS_LIMIT));
        assert!(
            q.cols
                .iter()
                .flatten()
                .all(|c| c.chars().count() <= COLUMN_ID_CHARS)
        );
    }

    #[test]
    fn a_query_is_bounded_whatever_the_url_says() {
        let huge = "gpu ".repeat(15_000);
        let q = TableQuery::parse(&format!(
            "q={huge}&pad={}&state=ready&state=cordoned",
            "x".repeat(60_000)
        ));
        assert_eq!(q.q, "gpu", "repeated words are one word");
        assert_eq!(
            q.rest,
            vec![("state".to_string(), "cordoned".to_string())],
            "a parameter repeated counts once, with its last value"
        );
        assert!(
            !q.page_href(1).contains("pad"),
            "unknown parameters are not carried"
        );
        let many: Vec<String> = (0..100)
            .map(|i| format!("w{i}{}", "y".repeat(100)))
            .collect();
        let q = TableQuery::parse(&format!("q={}", many.join("+")));
        assert_eq!(q.words().len(), FILTER_WORDS);
        assert!(
            q.words()
                .iter()
                .all(|w| w.chars().count() <= FILTER_WORD_CHARS)
        );
    }
}
