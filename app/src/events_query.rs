//! What the events page shows, as its URL says it: a link pasted into chat
//! opens exactly that view. `node`, `model` and `kind` narrow; `since` and
//! `until` are a window back from now ("1h", "7d") or a moment
//! ("2026-12-01T09:00Z", or seconds since the Unix epoch); `before` is the
//! record the page starts after (the next, older page).

use crate::journal_record::EventKind;

/// Records on one page of events; a history section shows fewer.
pub const PAGE: u32 = 100;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventQuery {
    pub node: Option<String>,
    pub model: Option<String>,
    pub kinds: Vec<EventKind>,
    pub since: Option<String>,
    pub until: Option<String>,
    pub before: Option<i64>,
    /// How many records, at most [`PAGE`].
    pub limit: Option<u32>,
}

/// A moment the URL gives, as seconds since the Unix epoch; `None` when it
/// is not one (the page then says so rather than guess).
pub fn moment_of(text: &str, now: i64) -> Option<i64> {
    let text = text.trim();
    if let Some((n, unit)) = text.split_at_checked(text.len().checked_sub(1)?) {
        let seconds = match unit {
            "m" => 60,
            "h" => 3600,
            "d" => 86_400,
            _ => 0,
        };
        if seconds > 0 {
            return n
                .parse::<i64>()
                .ok()
                .filter(|n| (0..=36_500).contains(n))
                .map(|n| now - n * seconds);
        }
    }
    if let Ok(secs) = text.parse::<i64>() {
        return (0..=253_402_300_799).contains(&secs).then_some(secs);
    }
    // 2026-12-01T09:00Z, 2026-12-01T09:00:30Z, 2026-12-01 (UTC).
    let text = text.trim_end_matches('Z');
    let (date, time) = text.split_once(['T', ' ']).unwrap_or((text, "00:00"));
    let mut d = date.splitn(3, '-').map(|p| p.parse::<i64>().ok());
    let (y, mo, da) = (d.next()??, d.next()??, d.next()??);
    let mut t = time.splitn(3, ':').map(|p| p.parse::<i64>().ok());
    let (h, mi) = (t.next()??, t.next().unwrap_or(Some(0))?);
    let s = t.next().unwrap_or(Some(0))?;
    let within = |v: i64, hi: i64| (0..=hi).contains(&v);
    if !(1970..=9999).contains(&y) || !(1..=12).contains(&mo) || !(1..=31).contains(&da) {
        return None;
    }
    if !within(h, 23) || !within(mi, 59) || !within(s, 59) {
        return None;
    }
    Some(days_from_civil(y, mo, da) * 86_400 + h * 3600 + mi * 60 + s)
}

/// Howard Hinnant's days-from-civil: the inverse of `format::civil_date`.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

impl EventQuery {
    /// From a URL's query pairs; what is not understood is left out, and
    /// said by the page (see `problems`).
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut q = Self::default();
        let text = |v: &str| {
            let v = v.trim();
            (!v.is_empty()).then(|| v.to_string())
        };
        for (key, value) in pairs {
            match key {
                "node" => q.node = text(value),
                "model" => q.model = text(value),
                "kind" => q
                    .kinds
                    .extend(value.split(',').filter_map(|k| EventKind::parse(k.trim()))),
                "since" => q.since = text(value),
                "until" => q.until = text(value),
                "before" => q.before = value.trim().parse().ok(),
                "limit" => q.limit = value.trim().parse().ok(),
                _ => {}
            }
        }
        q
    }

    /// The query string that gives this view back (without `before`, for a
    /// filter's own links, when `paged` is false).
    pub fn to_query(&self, paged: bool) -> String {
        let mut pairs: Vec<(&str, String)> = Vec::new();
        if let Some(v) = &self.node {
            pairs.push(("node", v.clone()));
        }
        if let Some(v) = &self.model {
            pairs.push(("model", v.clone()));
        }
        if !self.kinds.is_empty() {
            let kinds: Vec<&str> = self.kinds.iter().map(|k| k.as_str()).collect();
            pairs.push(("kind", kinds.join(",")));
        }
        if let Some(v) = &self.since {
            pairs.push(("since", v.clone()));
        }
        if let Some(v) = &self.until {
            pairs.push(("until", v.clone()));
        }
        if let (true, Some(v)) = (paged, self.before) {
            pairs.push(("before", v.to_string()));
        }
        if let Some(v) = self.limit {
            pairs.push(("limit", v.to_string()));
        }
        pairs
            .iter()
            .map(|(k, v)| format!("{k}={}", crate::urls::encode_component(v)))
            .collect::<Vec<_>>()
            .join("&")
    }

    /// What in the URL is not a time the page can read.
    pub fn problems(&self, now: i64) -> Vec<String> {
        [("since", &self.since), ("until", &self.until)]
            .into_iter()
            .filter_map(|(name, value)| {
                let value = value.as_ref()?;
                moment_of(value, now).is_none().then(|| {
                    format!(
                        "{name}={value:?} is not a time: give a window back from now (\"1h\", \"7d\") or a moment (\"2026-12-01T09:00Z\")"
                    )
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_gives_back_exactly_its_view() {
        let q = EventQuery::from_pairs([
            ("node", "gpu-07"),
            ("kind", "node_state,attempt,nonsense"),
            ("since", "24h"),
            ("before", "1200"),
            ("utm", "x"),
        ]);
        assert_eq!(q.kinds, vec![EventKind::NodeState, EventKind::Attempt]);
        assert_eq!(q.before, Some(1200));
        assert_eq!(
            q.to_query(true),
            "node=gpu-07&kind=node_state%2Cattempt&since=24h&before=1200"
        );
        assert_eq!(
            q.to_query(false),
            "node=gpu-07&kind=node_state%2Cattempt&since=24h"
        );
    }

    #[test]
    fn times_are_windows_or_moments_and_anything_else_is_said() {
        let now = 1_796_116_320; // 2026-12-01T09:12:00Z
        assert_eq!(moment_of("1h", now), Some(now - 3600));
        assert_eq!(moment_of("7d", now), Some(now - 7 * 86_400));
        assert_eq!(moment_of("2026-12-01T09:12Z", now), Some(now));
        assert_eq!(moment_of("2026-12-01T09:12:00", now), Some(now));
        assert_eq!(moment_of("2026-12-01", now), Some(now - 9 * 3600 - 12 * 60));
        assert_eq!(moment_of("1796116320", now), Some(now));
        for bad in [
            "",
            "h",
            "yesterday",
            "2026-13-01",
            "99999999999999d",
            "-1h",
            "2026-12-01T25:00",
            "2026-12-01T-5:00",
            "9999999999999-01-01",
        ] {
            assert_eq!(moment_of(bad, now), None, "{bad}");
        }
        let q = EventQuery::from_pairs([("since", "yesterday")]);
        assert_eq!(q.problems(now).len(), 1);
    }
}
