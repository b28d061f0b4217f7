//! The app's layout holds: no two modules of `app/src` import each other,
//! even through others, and no page imports another page (what two pages
//! share belongs in `components/`, `urls`, `format` or `joins`). Read from the
//! sources, so a change that breaks it fails here, not in review.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module, named by its file relative to `app/src` without `.rs`
/// (`pages/models`, `server/context`, `urls`); `mod.rs` files by their folder.
type Module = String;

fn app_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("app/src")
}

fn module_of(file: &Path) -> Module {
    let rel = file.strip_prefix(app_src()).expect("under app/src");
    let name = rel.with_extension("").to_string_lossy().replace('\\', "/");
    name.strip_suffix("/mod").unwrap_or(&name).to_string()
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable").flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source without comments, and without its `mod tests` (tests may
/// reach anywhere).
fn code(source: &str) -> String {
    let without_tests = match source.find("#[cfg(test)]\nmod tests") {
        Some(i) => &source[..i],
        None => source,
    };
    without_tests
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `crate::a::b::{c, d}` path in `code`, expanded to `[a, b, c]`,
/// `[a, b, d]`; `super::x` in a file's top level is taken from its parent.
fn paths(code: &str, module: &str) -> Vec<Vec<String>> {
    let parent: Vec<&str> = match module.rsplit_once('/') {
        Some((p, _)) => p.split('/').collect(),
        None => Vec::new(),
    };
    let mut out = Vec::new();
    for (prefix, base) in [("crate::", Vec::new()), ("super::", parent)] {
        let mut rest = code;
        while let Some(i) = rest.find(prefix) {
            let before = rest[..i].chars().last();
            rest = &rest[i + prefix.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            // `super::` inside an inline module (`mod ssr`) means this file.
            if prefix == "super::" && !code_at_top_level(code, code.len() - rest.len()) {
                continue;
            }
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || "_:{}, \n".contains(c)))
                .unwrap_or(rest.len());
            for path in expand(&rest[..end]) {
                let mut full: Vec<String> = base.iter().map(|s| s.to_string()).collect();
                full.extend(path);
                out.push(full);
            }
        }
    }
    out
}

/// Whether byte `at` of `code` is outside every inline `mod x { ... }`.
fn code_at_top_level(code: &str, at: usize) -> bool {
    let mut depth_of_mods: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    let mut pending_mod = false;
    for (i, token) in code[..at].char_indices() {
        match token {
            '{' => {
                depth += 1;
                if pending_mod {
                    depth_of_mods.push(depth);
                    pending_mod = false;
                }
            }
            '}' => {
                if depth_of_mods.last() == Some(&depth) {
                    depth_of_mods.pop();
                }
                depth = depth.saturating_sub(1);
            }
            ';' => pending_mod = false,
            'm' if code[i..].starts_with("mod ") => pending_mod = true,
            _ => {}
        }
    }
    depth_of_mods.is_empty()
}

/// `a::b::{c, d::e}` into `[a, b, c]` and `[a, b, d, e]`.
fn expand(text: &str) -> Vec<Vec<String>> {
    let text: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let text = text.trim_end_matches([',', ':']);
    match text.find('{') {
        None => vec![
            text.split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
        ],
        Some(open) => {
            let head: Vec<String> = text[..open]
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            let inner = text[open + 1..].trim_end_matches('}');
            split_top_level(inner)
                .into_iter()
                .flat_map(|part| expand(&part))
                .map(|tail| head.iter().cloned().chain(tail).collect())
                .collect()
        }
    }
}

fn split_top_level(text: &str) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut depth = 0;
    for c in text.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(String::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = parts.last_mut() {
            last.push(c);
        }
    }
    parts.retain(|p| !p.is_empty());
    parts
}

/// The module a path lands in: the longest prefix that is a file, seen
/// through a folder's `mod.rs` to the child that holds the item it re-exports.
fn resolve(
    path: &[String],
    modules: &BTreeSet<Module>,
    reexports: &BTreeMap<Module, BTreeMap<String, Module>>,
) -> Option<Module> {
    let mut found = None;
    for len in (1..=path.len()).rev() {
        let candidate = path[..len].join("/");
        if modules.contains(&candidate) {
            found = Some((candidate, len));
            break;
        }
    }
    let (mut module, mut len) = found?;
    while let Some(item) = path.get(len) {
        match reexports.get(&module).and_then(|r| r.get(item)) {
            Some(child) => {
                module = child.clone();
                len += 1;
            }
            None => break,
        }
    }
    Some(module)
}

fn graph() -> BTreeMap<Module, BTreeSet<Module>> {
    let mut all = Vec::new();
    files(&app_src(), &mut all);
    let sources: BTreeMap<Module, String> = all
        .iter()
        .map(|f| {
            (
                module_of(f),
                code(&std::fs::read_to_string(f).expect("utf-8")),
            )
        })
        .filter(|(m, _)| m != "lib")
        .collect();
    let modules: BTreeSet<Module> = sources.keys().cloned().collect();
    // What each folder's mod.rs re-exports, and from which child.
    let mut reexports: BTreeMap<Module, BTreeMap<String, Module>> = BTreeMap::new();
    for (module, code) in &sources {
        for line in code
            .lines()
            .filter(|l| l.trim_start().starts_with("pub use "))
        {
            let body = line
                .trim_start()
                .trim_start_matches("pub use ")
                .trim_end_matches(';');
            for path in expand(body) {
                if let (Some(child), Some(item)) = (path.first(), path.last()) {
                    let child = format!("{module}/{child}");
                    if modules.contains(&child) {
                        reexports
                            .entry(module.clone())
                            .or_default()
                            .insert(item.clone(), child);
                    }
                }
            }
        }
    }
    sources
        .iter()
        .map(|(module, code)| {
            let deps = paths(code, module)
                .iter()
                .filter_map(|p| resolve(p, &modules, &reexports))
                .filter(|d| d != module && !module.starts_with(&format!("{d}/")))
                .collect();
            (module.clone(), deps)
        })
        .collect()
}

/// One cycle through `start`, if any.
fn cycle_from(start: &str, graph: &BTreeMap<Module, BTreeSet<Module>>) -> Option<Vec<Module>> {
    fn walk(
        at: &str,
        start: &str,
        graph: &BTreeMap<Module, BTreeSet<Module>>,
        path: &mut Vec<Module>,
        seen: &mut BTreeSet<Module>,
    ) -> bool {
        for next in graph.get(at).into_iter().flatten() {
            if next == start {
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if walk(next, start, graph, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start.to_string()];
    walk(start, start, graph, &mut path, &mut BTreeSet::new()).then_some(path)
}

#[test]
fn no_module_of_the_app_imports_itself_through_others() {
    let graph = graph();
    assert!(
        graph.len() > 20,
        "the sources were read: {:?}",
        graph.keys()
    );
    let cycles: Vec<String> = graph
        .keys()
        .filter_map(|m| cycle_from(m, &graph))
        .map(|c| format!("{} -> {}", c.join(" -> "), c[0]))
        .collect();
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

#[test]
fn no_page_imports_another_page() {
    let graph = graph();
    let crossings: Vec<String> = graph
        .iter()
        .filter(|(m, _)| m.starts_with("pages/"))
        .flat_map(|(m, deps)| {
            deps.iter()
                .filter(|d| d.starts_with("pages/"))
                .map(move |d| format!("{m} -> {d}"))
        })
        .collect();
    assert!(crossings.is_empty(), "{crossings:?}");
}

#[test]
fn the_reader_sees_imports_through_reexports_and_groups() {
    // The two checks above are only as good as this reading of the sources.
    assert_eq!(
        expand("a::{b, c::{d, e}}"),
        [vec!["a", "b"], vec!["a", "c", "d"], vec!["a", "c", "e"]]
    );
    let graph = graph();
    let nodes_page = &graph["pages/nodes"];
    assert!(
        nodes_page.contains("components/nodes_table"),
        "{nodes_page:?}"
    );
    assert!(nodes_page.contains("server_fns/nodes"), "{nodes_page:?}");
    assert!(graph["server_fns/nodes"].contains("server/context"));
}
