//! What the events page shows, as its URL says it: a link pasted into chat
//! opens exactly that view. `node`, `model` and `kind` narrow; `since` and
//! `until` are a window back from now ("1h", "7d") or a moment
//! ("2026-12-01T09:00Z", or seconds since the Unix epoch); `before` is the
//! record the page starts after (the next, older page).

use llmgw_journal::record::EventKind;

/// Records on one page of events; a history section shows fewer.
pub const PAGE: u32 = 100;

/// Parts of a URL not understood that are kept, and said, at most: a link
/// of thousands of them costs no more than this.
const UNREAD_KEPT: usize = 10;

/// What of a part not understood the page repeats, at most, in characters.
const UNREAD_SHOWN: usize = 60;

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
    /// What the URL gave that is not understood (the first few), kept so
    /// that the page says so rather than show a view not asked for.
    pub unread: Vec<(String, String)>,
}

/// A moment the URL gives, as seconds since the Unix epoch; `None` when it
/// is not one (the page then says so rather than guess).
pub fn moment_of(text: &str, now: i64) -> Option<i64> {
    let text = text.trim();
    // "15m", "1h", "7d": no moment ends in a unit.
    if text.ends_with(['m', 'h', 'd']) {
        return window_seconds(text).map(|back| now - back);
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
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = match mo {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    if !(1970..=9999).contains(&y) || !(1..=12).contains(&mo) || !(1..=days).contains(&da) {
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
        let (mut from, mut to) = (None, None);
        let mut unread = Vec::new();
        let mut unread_one = |key: &str, value: &str| {
            if unread.len() < UNREAD_KEPT {
                unread.push((shown(key), shown(value)));
            }
        };
        for (key, value) in pairs {
            match key {
                "node" => q.node = text(value),
                "model" => q.model = text(value),
                "kind" => {
                    for k in value.split(',').map(str::trim).filter(|k| !k.is_empty()) {
                        match EventKind::parse(k) {
                            // Each kind once: repeated, it narrows nothing
                            // and would cost the query a term each time.
                            Some(kind) if q.kinds.contains(&kind) => {}
                            Some(kind) => q.kinds.push(kind),
                            None => unread_one(key, k),
                        }
                    }
                }
                "since" => q.since = text(value),
                "until" => q.until = text(value),
                // The form's From and To: a moment, which wins over the
                // window its list offers.
                "from" => from = text(value),
                "to" => to = text(value),
                "before" => match value.trim().parse::<i64>() {
                    Ok(id) if id > 0 => q.before = Some(id),
                    _ => unread_one(key, value),
                },
                "limit" => match value.trim().parse::<u32>() {
                    Ok(n) if n > 0 => q.limit = Some(n),
                    _ => unread_one(key, value),
                },
                _ => unread_one(key, value),
            }
        }
        q.unread = unread;
        if from.is_some() {
            q.since = from;
        }
        if to.is_some() {
            q.until = to;
        }
        q
    }

    /// `since` or `until` as a moment the form's From or To shows
    /// (`2026-12-01T09:00`, UTC), when it is one rather than a window.
    pub fn as_field(value: Option<&str>) -> String {
        value
            .filter(|v| !is_window(v))
            .and_then(|v| moment_of(v, 0))
            .map(|at| crate::format::rfc3339(at)[..16].to_string())
            .unwrap_or_default()
    }

    /// The window this view covers, in moments: (from, to); `None` for
    /// an end not given (the start of the record, or now).
    pub fn window(&self, now: i64) -> (Option<i64>, Option<i64>) {
        let at = |v: &Option<String>| v.as_deref().and_then(|v| moment_of(v, now));
        (at(&self.since), at(&self.until))
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
        // Kept, so that what the page was given is still said on the
        // server's side and in every link it makes.
        for (k, v) in &self.unread {
            pairs.push((k.as_str(), v.clone()));
        }
        pairs
            .iter()
            .map(|(k, v)| {
                format!(
                    "{}={}",
                    crate::urls::encode_component(k),
                    crate::urls::encode_component(v)
                )
            })
            .collect::<Vec<_>>()
            .join("&")
    }

    /// What in the URL the page cannot read, and what it shows instead.
    pub fn problems(&self, now: i64) -> Vec<String> {
        let times = [("since", &self.since), ("until", &self.until)]
            .into_iter()
            .filter_map(|(name, value)| {
                let value = value.as_ref()?;
                moment_of(value, now).is_none().then(|| {
                    format!(
                        "{name}={:?} is not a time: give a window back from now (\"1h\", \"7d\") or a moment (\"2026-12-01T09:00Z\")",
                        shown(value)
                    )
                })
            });
        let unread = self.unread.iter().map(|(key, value)| {
            let given = format!("{key}={value:?}");
            match key.as_str() {
                "kind" => format!("{given} is not a kind of record: left out"),
                "before" => format!("{given} is not a record's number: the newest are shown"),
                "limit" => format!("{given} is not a number of records: up to {PAGE} are shown"),
                _ => format!(
                    "{given} is not something this page filters by (node, model, kind, since, until): left out"
                ),
            }
        });
        times.chain(unread).collect()
    }
}

/// Whether `text` is a window back from now ("1h", "7d") rather than a
/// moment.
pub fn is_window(text: &str) -> bool {
    window_seconds(text.trim()).is_some()
}

/// How far back a window ("15m", "1h", "7d", up to a century) reaches, in
/// seconds.
fn window_seconds(text: &str) -> Option<i64> {
    let (n, unit) = text.split_at_checked(text.len().checked_sub(1)?)?;
    let seconds = match unit {
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return None,
    };
    n.parse::<i64>()
        .ok()
        .filter(|n| (0..=36_500).contains(n))
        .map(|n| n * seconds)
}

/// `text` as the page repeats it: its start, when it is long.
fn shown(text: &str) -> String {
    match text.char_indices().nth(UNREAD_SHOWN) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_window_is_what_reads_as_one_and_nothing_else() {
        let now = 1_000_000_000;
        for (text, back) in [("15m", 900), ("1h", 3600), (" 7d ", 7 * 86_400), ("0d", 0)] {
            assert!(super::is_window(text), "{text}");
            assert_eq!(super::moment_of(text, now), Some(now - back), "{text}");
        }
        // Past a century, or not a count: neither a window nor a moment.
        for text in ["36501d", "xh", "h", "-1h", "1.5h"] {
            assert!(!super::is_window(text), "{text}");
            assert_eq!(super::moment_of(text, now), None, "{text}");
        }
        assert!(!super::is_window("2026-12-01T09:00"));
        assert!(super::moment_of("2026-12-01T09:00", now).is_some());
    }

    #[test]
    fn from_and_to_are_moments_that_win_over_the_window() {
        let q = super::EventQuery::from_pairs([
            ("since", "1h"),
            ("from", "2026-12-01T09:00"),
            ("to", ""),
            ("until", "2026-12-02"),
        ]);
        assert_eq!(q.since.as_deref(), Some("2026-12-01T09:00"));
        assert_eq!(q.until.as_deref(), Some("2026-12-02"));
        assert!(q.unread.is_empty());
        assert_eq!(
            super::EventQuery::as_field(q.since.as_deref()),
            "2026-12-01T09:00"
        );
        assert_eq!(super::EventQuery::as_field(Some("1h")), "");
        assert_eq!(
            super::EventQuery::as_field(Some("1764579600")),
            "2025-12-01T09:00"
        );
        let (from, to) = q.window(0);
        assert_eq!(from, Some(1_764_579_600 + 365 * 86_400));
        assert_eq!(to, Some(1_764_579_600 + 366 * 86_400 - 9 * 3600));
    }

    use super::*;

    #[test]
    fn a_link_gives_back_exactly_its_view() {
        let q = EventQuery::from_pairs([
            ("node", "gpu-07"),
            ("kind", "node_state,attempt"),
            ("since", "24h"),
            ("before", "1200"),
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
        assert_eq!(moment_of("2026-02-31", now), None, "no such day");
        assert_eq!(moment_of("2028-02-29", now), Some(1_835_395_200));
        let q = EventQuery::from_pairs([("since", "yesterday")]);
        assert_eq!(q.problems(now).len(), 1);
    }

    #[cfg(feature = "ssr")]
    #[test]
    fn what_a_link_gives_that_is_not_understood_is_said_and_kept() {
        let long = "x".repeat(65_536);
        let q = EventQuery::from_pairs([
            ("kind", "node_sate,node_state"),
            ("before", "-5"),
            ("limit", "4294967296"),
            ("x&kind", "attempt"),
            ("model", "m"),
            ("nde", long.as_str()),
        ]);
        assert_eq!(q.kinds, vec![EventKind::NodeState]);
        assert_eq!((q.before, q.limit), (None, None));
        let problems = q.problems(0);
        assert_eq!(problems.len(), 5, "{problems:?}");
        assert!(problems[0].starts_with("kind=\"node_sate\" is not a kind"));
        assert!(problems.iter().all(|p| p.len() < 200), "long values cut");
        // The server is asked with them, so that it says so too: the same
        // parts, a key with `&` in it still one key.
        let asked = q.to_query(true);
        assert!(asked.len() < 1_000, "kept cut: {asked}");
        let pairs: Vec<(String, String)> = serde_urlencoded::from_str(&asked).expect("a query");
        let again = EventQuery::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        assert_eq!(again.unread, q.unread);
        assert_eq!(again.kinds, vec![EventKind::NodeState]);
        let many: Vec<(&str, &str)> = (0..7_000).map(|_| ("kind", "nonsense")).collect();
        assert_eq!(EventQuery::from_pairs(many).unread.len(), UNREAD_KEPT);
        let repeated: Vec<(&str, &str)> =
            (0..7_000).map(|_| ("kind", "node_state,attempt")).collect();
        assert_eq!(
            EventQuery::from_pairs(repeated).kinds,
            vec![EventKind::NodeState, EventKind::Attempt],
            "each kind once"
        );
    }
}
