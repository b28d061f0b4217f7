//! Sorting and filtering of tables, kept in the URL (`?q=`, `?sort=`,
//! `?desc=1`) so that a reload or a pasted link shows the same rows in the
//! same order. Works without JavaScript: sorting is links, filtering a form.

use std::cmp::Ordering;

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;
use leptos_router::params::ParamsMap;

use crate::urls::{self, encode_query};

/// One table's view settings, as read from the URL.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableQuery {
    /// Words that must all appear in a row (case-insensitive).
    pub q: String,
    pub sort: Option<String>,
    pub desc: bool,
    /// Every other parameter, kept when sorting or filtering changes.
    pub rest: Vec<(String, String)>,
}

impl TableQuery {
    pub fn from_params(params: &ParamsMap) -> Self {
        let mut query = Self::default();
        for (key, value) in params.into_iter() {
            match key.as_ref() {
                "q" => query.q = value.trim().to_string(),
                "sort" => query.sort = Some(value.to_string()).filter(|s| !s.is_empty()),
                "desc" => query.desc = value == "1",
                // One-shot parameters never survive a change of view.
                one_shot if urls::is_one_shot(one_shot) => {}
                _ => query.rest.push((key.to_string(), value.to_string())),
            }
        }
        query
    }

    /// The link a column header points to: sort by it, or flip the order if
    /// it is already the sort column.
    pub fn sort_href(&self, column: &str) -> String {
        let desc = self.sort.as_deref() == Some(column) && !self.desc;
        let mut pairs = self.rest.clone();
        if !self.q.is_empty() {
            pairs.push(("q".into(), self.q.clone()));
        }
        pairs.push(("sort".into(), column.into()));
        if desc {
            pairs.push(("desc".into(), "1".into()));
        }
        format!("?{}", encode_query(&pairs))
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
        let haystack = haystack.to_lowercase();
        self.q
            .split_whitespace()
            .all(|word| haystack.contains(&word.to_lowercase()))
    }

    /// Filters and sorts `rows`, the way the URL says.
    pub fn apply<T>(
        &self,
        rows: Vec<T>,
        text: impl Fn(&T) -> String,
        key: impl Fn(&T, &str) -> SortKey,
    ) -> Vec<T> {
        let mut rows: Vec<T> = rows
            .into_iter()
            .filter(|r| self.matches(&text(r)))
            .collect();
        if let Some(column) = &self.sort {
            rows.sort_by(|a, b| {
                let order = key(a, column).cmp(&key(b, column));
                if self.desc { order.reverse() } else { order }
            });
        }
        rows
    }
}

/// What a column sorts by. Numbers sort as numbers, and an unknown value
/// (a dash on screen) sorts after every known one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SortKey {
    Num(i64),
    Text(String),
    Unknown,
}

impl PartialOrd for SortKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SortKey {
    fn cmp(&self, other: &Self) -> Ordering {
        use SortKey::*;
        match (self, other) {
            (Num(a), Num(b)) => a.cmp(b),
            (Text(a), Text(b)) => natural(a, b),
            (Unknown, Unknown) => Ordering::Equal,
            (Unknown, _) => Ordering::Greater,
            (_, Unknown) => Ordering::Less,
            (Num(_), Text(_)) => Ordering::Less,
            (Text(_), Num(_)) => Ordering::Greater,
        }
    }
}

/// Case-insensitive order in which "gpu-2" comes before "gpu-10".
fn natural(a: &str, b: &str) -> Ordering {
    fn chunks(s: &str) -> Vec<(bool, String)> {
        let mut out: Vec<(bool, String)> = Vec::new();
        for c in s.to_lowercase().chars() {
            let digit = c.is_ascii_digit();
            match out.last_mut() {
                Some((d, chunk)) if *d == digit => chunk.push(c),
                _ => out.push((digit, c.to_string())),
            }
        }
        out
    }
    let (ca, cb) = (chunks(a), chunks(b));
    for (x, y) in ca.iter().zip(cb.iter()) {
        let order = match (x, y) {
            ((true, x), (true, y)) => x
                .trim_start_matches('0')
                .len()
                .cmp(&y.trim_start_matches('0').len())
                .then_with(|| x.trim_start_matches('0').cmp(y.trim_start_matches('0'))),
            ((_, x), (_, y)) => x.cmp(y),
        };
        if order != Ordering::Equal {
            return order;
        }
    }
    ca.len().cmp(&cb.len()).then_with(|| a.cmp(b))
}

/// The current URL's table settings, reactively.
pub fn use_table_query() -> Memo<TableQuery> {
    let params = use_query_map();
    Memo::new(move |_| params.with(TableQuery::from_params))
}

/// The URL's table settings, for rows rendered from `Live`'s data: read
/// here, the read is tracked by `Live`, which renders the rows again when a
/// sort or filter changes by client-side navigation. Rendered again, not
/// anew: a refresh or a sort updates the table's DOM in place, so a row
/// whose text did not change keeps its nodes (and the text selected in it).
/// Wrapping the rows in a closure instead would rebuild every row.
pub fn tracked_table_query() -> Memo<TableQuery> {
    let query = use_table_query();
    query.track();
    query
}

/// A header cell that sorts its column when clicked.
#[component]
pub fn SortHeader(
    query: Memo<TableQuery>,
    column: &'static str,
    label: &'static str,
    #[prop(optional)] title: Option<&'static str>,
) -> impl IntoView {
    let arrow = move || {
        query.with(|q| match q.aria_sort(column) {
            "ascending" => " ▲",
            "descending" => " ▼",
            _ => "",
        })
    };
    view! {
        <th scope="col" aria-sort=move || query.with(|q| q.aria_sort(column)) title=title>
            <a href=move || query.with(|q| q.sort_href(column))>{label}{arrow}</a>
        </th>
    }
}

/// The filter box and the count of rows shown. A plain GET form, so it
/// works without JavaScript and leaves the filter in the URL.
#[component]
pub fn FilterBar(
    query: Memo<TableQuery>,
    shown: usize,
    total: usize,
    noun: &'static str,
) -> impl IntoView {
    let q = query.with_untracked(|q| q.q.clone());
    let hidden = query.with_untracked(|q| {
        let mut pairs = q.rest.clone();
        if let Some(sort) = &q.sort {
            pairs.push(("sort".into(), sort.clone()));
        }
        if q.desc {
            pairs.push(("desc".into(), "1".into()));
        }
        pairs
    });
    let filtered = shown != total;
    view! {
        <form class="filter-bar" method="get" role="search">
            {hidden
                .into_iter()
                .map(|(k, v)| view! { <input type="hidden" name=k value=v /> })
                .collect_view()}
            <label>
                <span class="visually-hidden">"Filter " {noun}</span>
                <input type="search" name="q" value=q placeholder="Filter…" aria-label=format!("Filter {noun}") />
            </label>
            <button type="submit">"Filter"</button>
            <span class="count" class:filtered=filtered>
                {if filtered {
                    format!("{shown} of {total} {noun}")
                } else {
                    format!("{total} {noun}")
                }}
            </span>
        </form>
    }
}

/// The filter bar above a table, and in place of the table a sentence when
/// the filter leaves no row (never an empty table, which reads as "none").
#[component]
pub fn FilteredTable(
    query: Memo<TableQuery>,
    shown: usize,
    total: usize,
    /// "nodes", for the count.
    noun: &'static str,
    /// "node", for "No node matches this filter."
    one: &'static str,
    children: Children,
) -> impl IntoView {
    view! {
        <FilterBar query shown total noun />
        {if shown == 0 {
            view! { <p class="empty">{format!("No {one} matches this filter.")}</p> }.into_any()
        } else {
            children().into_any()
        }}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            rest: vec![("state".into(), "ready".into())],
        };
        assert_eq!(q.sort_href("gpus"), "?state=ready&q=a%20b&sort=gpus&desc=1");
        assert_eq!(q.sort_href("node"), "?state=ready&q=a%20b&sort=node");
    }

    #[test]
    fn numbers_sort_as_numbers_and_unknowns_last() {
        let mut keys = vec![
            SortKey::Unknown,
            SortKey::Num(10),
            SortKey::Num(9),
            SortKey::Text("gpu-10".into()),
            SortKey::Text("gpu-9".into()),
        ];
        keys.sort();
        assert_eq!(
            keys,
            vec![
                SortKey::Num(9),
                SortKey::Num(10),
                SortKey::Text("gpu-9".into()),
                SortKey::Text("gpu-10".into()),
                SortKey::Unknown
            ]
        );
    }
}
