//! Which exposition format a scraper gets. The client crate writes
//! OpenMetrics, which Prometheus asks for first; `promtool check metrics`,
//! `curl` and older scrapers read the classic text format, where a
//! counter's family is named with its `_total` and there is no `# UNIT`
//! or `# EOF`. The samples are the same lines in both.

use std::collections::HashSet;

pub const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
pub const CLASSIC: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Whether the `Accept` header asks for OpenMetrics.
pub fn wants_openmetrics(accept: Option<&str>) -> bool {
    accept.is_some_and(|a| {
        a.split(',').any(|item| {
            let mut parts = item.split(';').map(str::trim);
            let media = parts.next().unwrap_or_default();
            // `q=0` says "not this one".
            media.eq_ignore_ascii_case("application/openmetrics-text")
                && !parts.any(|p| p.replace(' ', "") == "q=0")
        })
    })
}

/// OpenMetrics as the client crate writes it, in the classic format.
pub fn classic(openmetrics: &str) -> String {
    let counters: HashSet<&str> = openmetrics
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|rest| rest.strip_suffix(" counter"))
        .collect();
    let mut out = String::with_capacity(openmetrics.len());
    for line in openmetrics.lines() {
        if line == "# EOF" || line.starts_with("# UNIT ") {
            continue;
        }
        let renamed = ["# HELP ", "# TYPE "].iter().find_map(|prefix| {
            let rest = line.strip_prefix(prefix)?;
            let (name, tail) = rest.split_once(' ')?;
            counters
                .contains(name)
                .then(|| format!("{prefix}{name}_total {tail}"))
        });
        match renamed {
            Some(line) => out.push_str(&line),
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_named_with_their_total_and_openmetrics_only_lines_go() {
        let om = "# HELP a_requests Requests.\n# TYPE a_requests counter\na_requests_total{k=\"v\"} 1\n\
                  # HELP a_seconds Time.\n# TYPE a_seconds histogram\n# UNIT a_seconds seconds\n\
                  a_seconds_sum 0.5\n# EOF\n";
        assert_eq!(
            classic(om),
            "# HELP a_requests_total Requests.\n# TYPE a_requests_total counter\na_requests_total{k=\"v\"} 1\n\
             # HELP a_seconds Time.\n# TYPE a_seconds histogram\na_seconds_sum 0.5\n"
        );
    }

    #[test]
    fn openmetrics_is_given_only_when_asked_for() {
        let prometheus = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
        assert!(wants_openmetrics(Some(prometheus)));
        assert!(!wants_openmetrics(Some("text/plain")));
        assert!(!wants_openmetrics(Some("*/*")));
        assert!(!wants_openmetrics(None));
        assert!(!wants_openmetrics(Some(
            "application/openmetrics-text; q=0"
        )));
    }
}
