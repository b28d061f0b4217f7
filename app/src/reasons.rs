//! What a rejection's words tell, as far as they tell it. The reasons are
//! llmgw's free text and may be worded otherwise by another version, so
//! nothing here decides that a fix works: the words only say which check a
//! rejection is about, and the figures it quotes. A reason the words do not
//! place is [`Concern::Other`], which no fix is ever said to remove.

/// Which check of placement a reason is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Concern {
    /// Cordoned, draining, or otherwise taken out by an operator.
    State,
    /// Unhealthy GPUs.
    Health,
    /// The node's agent is not reporting.
    Silent,
    /// Room for the weights.
    Disk,
    /// The kind of GPU.
    Class,
    /// The interconnect.
    Fabric,
    /// How many GPUs are free.
    Gpus,
    /// Anything else: anti-affinity, memory, a rule the console cannot see.
    Other,
}

/// The GPU classes and fabrics the cluster's nodes report: the words a
/// reason can name them by.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Vocabulary {
    pub classes: Vec<String>,
    pub fabrics: Vec<String>,
}

impl Vocabulary {
    pub fn of(nodes: &[crate::admin_api::types::NodeView]) -> Self {
        let mut classes = std::collections::BTreeSet::new();
        let mut fabrics = std::collections::BTreeSet::new();
        for n in nodes {
            classes.extend(n.classes.iter().filter(|c| !c.is_empty()));
            fabrics.extend(n.fabrics.iter().filter(|f| !f.is_empty()));
        }
        Self {
            classes: classes.into_iter().cloned().collect(),
            fabrics: fabrics.into_iter().cloned().collect(),
        }
    }
}

fn has_any(lower: &str, words: &[&str]) -> bool {
    words.iter().any(|w| lower.contains(w))
}

const STATE: &[&str] = &["cordon", "drain", "unschedulable"];
const HEALTH: &[&str] = &["unhealthy", "xid", "ecc", "fallen off"];
const SILENT: &[&str] = &["heartbeat", "not reporting", "not reported", "unreachable"];
const DISK: &[&str] = &[
    "disk",
    "space",
    "storage",
    "volume",
    "filesystem",
    "model dir",
    "cache dir",
];
/// Words of checks the console cannot make: a reason with any of them is
/// never taken as answered, whatever else it says.
const OTHER: &[&str] = &[
    "memory",
    " ram",
    "affinity",
    "colocat",
    "maintenance",
    "disabled",
    "taint",
    "driver",
    "version",
    "quota",
    "limit",
    "policy",
    "label",
    "selector",
];
const GPUS: &[&str] = &["gpu", "accelerator"];

/// Every check a reason's words name, in [`Concern`]'s order; a reason
/// that names none is [`Concern::Other`]. "node(s) were unschedulable,
/// node(s) didn't match pod anti-affinity rules" names the state and a
/// rule: an uncordon answers only the first.
pub fn concerns(reason: &str, words: &Vocabulary) -> Vec<Concern> {
    let r = reason.to_ascii_lowercase();
    let class = !named(reason, &words.classes).is_empty();
    let checks = [
        (has_any(&r, STATE), Concern::State),
        (has_any(&r, HEALTH), Concern::Health),
        (has_any(&r, SILENT), Concern::Silent),
        (has_any(&r, DISK), Concern::Disk),
        (class, Concern::Class),
        (!named(reason, &words.fabrics).is_empty(), Concern::Fabric),
        // "needs a100-80g GPUs" is about the class, not the count; a
        // device is a GPU unless the reason is about disk ("no space left
        // on device").
        (
            !class && (has_any(&r, GPUS) || (!has_any(&r, DISK) && r.contains("device"))),
            Concern::Gpus,
        ),
        (has_any(&r, OTHER), Concern::Other),
    ];
    let mut found: Vec<Concern> = checks
        .into_iter()
        .filter_map(|(hit, c)| hit.then_some(c))
        .collect();
    if found.is_empty() {
        found.push(Concern::Other);
    }
    found.sort();
    found.dedup();
    found
}

/// The first check a reason's words name: what the page ranks and groups
/// it by.
pub fn concern(reason: &str, words: &Vocabulary) -> Concern {
    concerns(reason, words)
        .first()
        .copied()
        .unwrap_or(Concern::Other)
}

/// Whether the byte before `i` (or after a word ending at `i`) joins it to
/// a longer word: the 80 of "a100-80g" is part of a class, not a figure.
fn joins(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-_./".contains(&b)
}

/// The known names (classes, fabrics) a reason mentions as whole words.
pub fn named(reason: &str, names: &[String]) -> Vec<String> {
    let lower = reason.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    names
        .iter()
        .filter(|name| {
            let name = name.to_ascii_lowercase();
            if name.is_empty() {
                return false;
            }
            lower.match_indices(&name).any(|(at, _)| {
                let end = at + name.len();
                (at == 0 || !joins(bytes[at - 1]))
                    && (end == bytes.len() || !joins(bytes[end]) || bytes[end] == b'.')
            })
        })
        .cloned()
        .collect()
}

/// Each figure that starts a word, with the word after it (lower case).
fn figures(reason: &str) -> Vec<(f64, String)> {
    placed_figures(reason)
        .into_iter()
        .map(|(_, n, unit)| (n, unit))
        .collect()
}

/// [`figures`], each with where its unit ends in `reason`.
fn placed_figures(reason: &str) -> Vec<(usize, f64, String)> {
    let bytes = reason.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() || (i > 0 && joins(bytes[i - 1])) {
            i += 1;
            continue;
        }
        let start = i;
        // "1,200": a comma between digits groups thousands.
        while i < bytes.len()
            && (bytes[i].is_ascii_digit()
                || bytes[i] == b'.'
                || (bytes[i] == b','
                    && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)
                    && bytes.get(i + 2).is_some_and(u8::is_ascii_digit)
                    && bytes.get(i + 3).is_some_and(u8::is_ascii_digit)
                    && !bytes.get(i + 4).is_some_and(u8::is_ascii_digit)))
        {
            i += 1;
        }
        let rest = &reason[i..];
        let spaces = rest.len() - rest.trim_start().len();
        let unit: String = rest
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect::<String>()
            .to_ascii_lowercase();
        if let Ok(n) = reason[start..i]
            .trim_end_matches('.')
            .replace(',', "")
            .parse()
        {
            found.push((i + spaces + unit.len(), n, unit));
        }
    }
    found
}

/// A size unit's worth in GB, as the console counts them (binary, like
/// node disks and [`crate::format::file_size`]).
fn scale(unit: &str) -> Option<f64> {
    match unit {
        "t" | "tb" | "tib" => Some(1024.0),
        "g" | "gb" | "gib" => Some(1.0),
        "m" | "mb" | "mib" => Some(1.0 / 1024.0),
        _ => None,
    }
}

/// The size a reason says the rejected model asked room for, in GB: the
/// first after a word of need ("needs 141G, 12G free", "12G free of 3.8T,
/// needs 140G"), else the largest it quotes ("141 GiB required").
pub fn quoted_gb(reason: &str) -> Option<i64> {
    let sizes: Vec<(usize, f64)> = placed_figures(reason)
        .into_iter()
        .filter_map(|(end, n, unit)| Some((end, n * scale(&unit)?)))
        .collect();
    let near_need = need_at(reason).and_then(|at| {
        // "141 GiB required": the size just before the word, in its clause;
        // else "needs 141G": the first after it.
        let before = sizes
            .iter()
            .rev()
            .find(|(end, _)| *end <= at && !reason[*end..at].contains([',', ';', ':', '.']));
        before
            .or_else(|| sizes.iter().find(|(end, _)| *end > at))
            .map(|(_, gb)| *gb)
    });
    near_need
        .or_else(|| sizes.iter().map(|(_, gb)| *gb).reduce(f64::max))
        .map(|gb| gb.ceil() as i64)
}

/// Where a word of need starts, in bytes of `reason`.
fn need_at(reason: &str) -> Option<usize> {
    // ASCII lower case keeps every byte where it was, so the place found
    // is a place in `reason` too.
    let lower = reason.to_ascii_lowercase();
    ["need", "require", "want", "ask"]
        .iter()
        .filter_map(|w| lower.find(w))
        .min()
}

/// How many GPUs a reason says one node must give ("needs 8 free GPUs, 2
/// free", "requires 4 GPUs"): the first figure after a word of need, in a
/// reason about GPUs. A reason that names no node may count a whole
/// profile's GPUs over several nodes, so the caller asks only of those that
/// name one.
pub fn needed_gpus(reason: &str) -> Option<i64> {
    let lower = reason.to_ascii_lowercase();
    if !has_any(&lower, GPUS) {
        return None;
    }
    let at = need_at(reason)?;
    // The first figure after the need, and only if it is a count: "needs
    // 141G" is a size, "requires 550.54" a version.
    figures(&reason[at..])
        .into_iter()
        .next()
        .filter(|(n, unit)| scale(unit).is_none() && n.fract() == 0.0 && *n > 0.0)
        .map(|(n, _)| n as i64)
}

/// The reason with its figures taken out, so that "needs 8 free GPUs, 2
/// free" and "…, 6 free" are one kind: what the page groups by.
pub fn kind_of(reason: &str) -> String {
    let bytes = reason.as_bytes();
    let mut out = String::with_capacity(reason.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() && (i == 0 || !joins(bytes[i - 1])) {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                i += 1;
            }
            // A figure that is part of a word ("8x22B") stays.
            if i < bytes.len() && bytes[i].is_ascii_alphabetic() && {
                let unit: String = reason[i..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphabetic())
                    .collect();
                !matches!(
                    unit.to_lowercase().as_str(),
                    "g" | "gb" | "gib" | "t" | "tb" | "tib" | "m" | "mb" | "mib"
                )
            } {
                out.push_str(&reason[start..i]);
            } else {
                out.push('N');
            }
            continue;
        }
        let c = reason[i..].chars().next().unwrap_or(' ');
        out.push(c);
        i += c.len_utf8();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words() -> Vocabulary {
        Vocabulary {
            classes: vec!["h100-80g".into(), "a100-40g".into(), "a100-80g".into()],
            fabrics: vec!["nvlink".into(), "infiniband".into()],
        }
    }

    #[test]
    fn sizes_are_read_in_any_usual_unit() {
        assert_eq!(
            quoted_gb("insufficient disk: needs 141G, 12G free"),
            Some(141)
        );
        assert_eq!(quoted_gb("wants 1.5 TB of model storage"), Some(1536));
        assert_eq!(quoted_gb("141 GiB required, 12 GiB available"), Some(141));
        assert_eq!(quoted_gb("needs 8 free GPUs, 6 free"), None);
        assert_eq!(quoted_gb("a100-80g needed"), None);
    }

    #[test]
    fn the_words_only_narrow_the_kind() {
        let w = words();
        let c = |r: &str| concern(r, &w);
        assert_eq!(c("node is cordoned"), Concern::State);
        assert_eq!(
            c("excluded: marked unschedulable by an operator"),
            Concern::State
        );
        assert_eq!(c("node is draining"), Concern::State);
        assert_eq!(c("insufficient disk: needs 55G"), Concern::Disk);
        assert_eq!(
            c("not enough free space on the model volume"),
            Concern::Disk
        );
        assert_eq!(c("needs 8 free GPUs, 6 free"), Concern::Gpus);
        assert_eq!(c("only 6 of 8 accelerators usable"), Concern::Gpus);
        assert_eq!(c("needs a100-80g GPUs, node has a100-40g"), Concern::Class);
        assert_eq!(c("pool has no h100-80g GPUs"), Concern::Class);
        assert_eq!(c("no pool offers 16 GPUs over infiniband"), Concern::Fabric);
        assert_eq!(c("insufficient memory: needs 300G"), Concern::Other);
        assert_eq!(
            c("anti-affinity: already runs a replica of this model"),
            Concern::Other
        );
        assert_eq!(c("GPU 3 unhealthy: Xid 48"), Concern::Health);
    }

    #[test]
    fn the_gpus_a_node_must_give_are_read_after_a_word_of_need() {
        assert_eq!(needed_gpus("needs 8 free GPUs, 2 free"), Some(8));
        assert_eq!(needed_gpus("requires 4 GPUs; 3 usable"), Some(4));
        assert_eq!(needed_gpus("only 3 of 4 accelerators usable"), None);
        assert_eq!(needed_gpus("needs a100-80g GPUs, node has a100-40g"), None);
        assert_eq!(needed_gpus("insufficient disk: needs 141G"), None);
    }

    #[test]
    fn names_are_found_as_whole_words() {
        let w = words();
        assert_eq!(
            named("needs a100-80g GPUs, node has a100-40g", &w.classes),
            ["a100-40g", "a100-80g"]
        );
        assert!(named("xa100-80g", &w.classes).is_empty());
        assert_eq!(named("over infiniband.", &w.fabrics), ["infiniband"]);
    }

    #[test]
    fn a_reason_names_every_check_it_is_about() {
        let w = words();
        let c = |r: &str| concerns(r, &w);
        assert_eq!(
            c("node(s) were unschedulable, node(s) didn't match pod anti-affinity rules"),
            [Concern::State, Concern::Other]
        );
        assert_eq!(
            c("cordoned; insufficient memory: needs 300G"),
            [Concern::State, Concern::Other]
        );
        assert_eq!(c("excluded: inside maintenance window"), [Concern::Other]);
        assert_eq!(
            c("GPU driver too old: requires 550.54"),
            [Concern::Gpus, Concern::Other]
        );
        assert_eq!(c("no space left on device: needs 141G"), [Concern::Disk]);
        assert_eq!(c("node is cordoned"), [Concern::State]);
    }

    #[test]
    fn figures_are_read_as_an_operator_would() {
        assert_eq!(quoted_gb("12G free of 3.8T, needs 140G"), Some(140));
        assert_eq!(quoted_gb("needs 1,200 GB, 900 GB free"), Some(1200));
        assert_eq!(quoted_gb("wants 1.5 TiB"), Some(1536));
        assert_eq!(needed_gpus("no space left on device: needs 141G"), None);
        assert_eq!(needed_gpus("GPU driver too old: requires 550.54"), None);
        assert_eq!(needed_gpus("needs 8 free GPUs, 2 free"), Some(8));
    }

    #[test]
    fn any_text_is_read_without_a_panic() {
        let w = words();
        for reason in [
            "GPU 2 hot (91 \u{212A}) \u{2014} needs 8 GPUs",
            "\u{130}\u{130}\u{130}\u{130} needs 4 GPUs \u{130}",
            "needs \u{1F600}1,2 GPUs, 3.\u{2014}",
            "1,",
            "9,999,",
            "",
        ] {
            let _ = (
                concerns(reason, &w),
                quoted_gb(reason),
                needed_gpus(reason),
                kind_of(reason),
            );
            let _ = named(reason, &w.classes);
        }
        assert_eq!(
            needed_gpus("GPU 2 hot (91 \u{212A}) \u{2014} needs 8 GPUs"),
            Some(8)
        );
    }

    #[test]
    fn a_kind_of_reason_has_its_figures_taken_out() {
        assert_eq!(
            kind_of("needs 8 free GPUs, 2 free"),
            "needs N free GPUs, N free"
        );
        assert_eq!(
            kind_of("insufficient disk: needs 141G, 12G free"),
            "insufficient disk: needs NG, NG free"
        );
        assert_eq!(
            kind_of("pool has no h100-80g GPUs"),
            "pool has no h100-80g GPUs"
        );
        assert_eq!(
            kind_of("Mixtral 8x22B won't fit"),
            "Mixtral 8x22B won't fit"
        );
    }
}
