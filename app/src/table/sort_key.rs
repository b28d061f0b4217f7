//! The order a table sorts in: numbers as numbers, names in natural order,
//! unknown values last.

use std::cmp::Ordering;

/// What a column sorts by. Numbers sort as numbers, and an unknown value
/// (a dash on screen) sorts after every known one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SortKey {
    Num(i64),
    Text(String),
    Unknown,
}

impl SortKey {
    /// A figure that sorts as a number when it is known, after every known
    /// one when it is not (shown as a dash).
    pub fn num_if(known: bool, n: i64) -> Self {
        if known { Self::Num(n) } else { Self::Unknown }
    }
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

/// Case-insensitive order in which "gpu-2" comes before "gpu-10". Runs of
/// digits compare as numbers, other runs as lower-case text; it allocates
/// nothing, since a sort calls it thousands of times.
fn natural(a: &str, b: &str) -> Ordering {
    let (mut ca, mut cb) = (runs(a), runs(b));
    loop {
        let order = match (ca.next(), cb.next()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some((true, x)), Some((true, y))) => {
                let (x, y) = (x.trim_start_matches('0'), y.trim_start_matches('0'));
                x.len().cmp(&y.len()).then_with(|| x.cmp(y))
            }
            (Some((_, x)), Some((_, y))) => lower(x).cmp(lower(y)),
        };
        if order != Ordering::Equal {
            return order;
        }
    }
}

fn lower(s: &str) -> impl Iterator<Item = char> + '_ {
    s.chars().flat_map(char::to_lowercase)
}

/// `s` as alternating runs of ASCII digits and of anything else.
fn runs(s: &str) -> impl Iterator<Item = (bool, &str)> {
    let mut rest = s;
    std::iter::from_fn(move || {
        let first = rest.chars().next()?;
        let digit = first.is_ascii_digit();
        let end = rest
            .find(|c: char| c.is_ascii_digit() != digit)
            .unwrap_or(rest.len());
        let (run, tail) = rest.split_at(end);
        rest = tail;
        Some((digit, run))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn natural_order_compares_runs_without_case() {
        let mut names = vec!["gpu-10", "GPU-9", "gpu-9b", "gpu-09", "a", "gpu-"];
        names.sort_by(|a, b| natural(a, b));
        assert_eq!(
            names,
            vec!["a", "gpu-", "GPU-9", "gpu-09", "gpu-9b", "gpu-10"]
        );
    }
}
