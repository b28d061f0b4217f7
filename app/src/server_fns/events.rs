//! The journal's records of one cluster, for the events page and the
//! history sections of the node, explain and overview pages.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::ConsoleError;
use llmgw_journal::record::JournalEvent;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventsPage {
    /// Newest first.
    pub events: Vec<JournalEvent>,
    /// Where the next, older page starts (its `before`), if there is one.
    pub older: Option<i64>,
    /// The server's clock when read: what times are shown beside.
    pub now: i64,
    /// What the URL asked that is not understood, said on the page.
    pub problems: Vec<String>,
    /// Why the journal cannot be read now, if it cannot.
    pub unavailable: Option<String>,
}

/// The records that `query` (the page's URL query, see `events_query`)
/// asks for.
#[server(endpoint = "/list_events")]
pub async fn list_events(#[server(default)] query: String) -> Result<EventsPage, ConsoleError> {
    ssr::list_events(query).await
}

#[cfg(feature = "ssr")]
mod ssr {
    use super::*;
    use crate::events_query::{EventQuery, PAGE, moment_of};
    use crate::server::ConsoleContext;
    use crate::server::signing::unix_now;
    use llmgw_journal::EventFilter;

    pub async fn list_events(query: String) -> Result<EventsPage, ConsoleError> {
        let cx = ConsoleContext::current()?;
        let pairs: Vec<(String, String)> = serde_urlencoded::from_str(&query).unwrap_or_default();
        let q = EventQuery::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        for name in [&q.node, &q.model].into_iter().flatten() {
            crate::server::input::name("name", name)?;
        }
        let now = unix_now() as i64;
        let mut page = EventsPage {
            now,
            problems: q.problems(now),
            ..EventsPage::default()
        };
        let Some(store) = cx.journal.store() else {
            page.unavailable = Some(
                cx.journal
                    .error_for_viewers()
                    .unwrap_or_else(|| "the journal's database is being opened".into()),
            );
            return Ok(page);
        };
        let minute = now - now.rem_euclid(60);
        let limit = q.limit.unwrap_or(PAGE).clamp(1, PAGE);
        let filter = EventFilter {
            cluster: Some(cx.cluster.tag.id.clone()),
            node: q.node.clone(),
            model: q.model.clone(),
            kinds: q.kinds.clone(),
            // A window back from now moves by the minute, not the second:
            // pages that ask the same in one minute share one answer.
            since: q.since.as_deref().and_then(|t| moment_of(t, minute)),
            until: q.until.as_deref().and_then(|t| moment_of(t, minute)),
            before_id: q.before,
        };
        // One more than shown: whether an older page exists.
        match cx.journal.read_shared(store, &filter, limit + 1).await {
            Ok(mut events) => {
                if events.len() > limit as usize {
                    events.truncate(limit as usize);
                    page.older = events.last().map(|e| e.id);
                }
                page.events = events;
            }
            Err(e) => page.unavailable = Some(crate::format::without_paths(&e.to_string())),
        }
        Ok(page)
    }
}
