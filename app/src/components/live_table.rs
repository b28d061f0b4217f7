//! A list the server pages for the URL's view, read again whenever the
//! server says the lists moved, and shown as one table.

use std::future::Future;

use leptos::prelude::*;

use super::data_table::PagedTable;
use crate::error::ConsoleError;
use crate::live::Live;
use crate::table::{Row, TablePage, TableQuery, TableRow, use_table_query};

/// `fetch` is the list's server function, given the URL's table query.
#[component]
pub fn LiveTable<T, F, Fut>(
    fetch: F,
    class: &'static str,
    /// "models", for the count.
    noun: &'static str,
    /// "model", for "No model matches this filter."
    one: &'static str,
    /// What an empty list means, in a sentence.
    empty: &'static str,
) -> impl IntoView
where
    T: TableRow + serde::Serialize + serde::de::DeserializeOwned,
    F: Fn(String) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<TablePage<Row<T>>, ConsoleError>> + Send + 'static,
{
    let query = use_table_query();
    let resource = Resource::new(move || query.with(TableQuery::to_query), fetch);
    let render = move |page: TablePage<Row<T>>| {
        view! { <PagedTable page query class noun one empty /> }
    };
    view! { <Live resource render /> }
}
