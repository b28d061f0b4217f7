//! Both crates' layout holds: no module of `app/src` or of `src/` imports
//! itself through others, no page imports another page (what two pages
//! share belongs outside `pages/`), and the app's parts use only the
//! layers below them (`LAYERS`). Read from the sources, so a change that
//! breaks it fails here, not in review. The sources are parsed with `syn`,
//! not searched as text: a comment is not an import, a string such as
//! "http://x" hides nothing after it, and a path inside `view! { ... }` is
//! still seen.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::buffer::{Cursor, TokenBuffer};
use syn::visit::{self, Visit};

/// A module, named by its file relative to the crate's `src` without `.rs`
/// (`pages/models`, `server/context`, `router`); `mod.rs` files by their
/// folder.
type Module = String;

/// Each module and the modules it depends on.
type Graph = BTreeMap<Module, BTreeSet<Module>>;

fn app_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("app/src")
}

fn server_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
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

/// Each module of the crate whose sources are in `src`, and its source.
/// `lib.rs` declares the modules and is above them all; `main.rs` is a crate
/// of its own, reaching the library by its name.
fn sources(src: &Path) -> BTreeMap<Module, String> {
    let mut all = Vec::new();
    files(src, &mut all);
    all.iter()
        .map(|file| {
            let rel = file.strip_prefix(src).expect("under src");
            let name = rel.with_extension("").to_string_lossy().replace('\\', "/");
            let module = name.strip_suffix("/mod").unwrap_or(&name).to_string();
            (module, std::fs::read_to_string(file).expect("utf-8"))
        })
        .filter(|(m, _)| m != "lib" && m != "main")
        .collect()
}

/// A path as written (`super::x::Y` as `["super", "x", "Y"]`), and where.
struct Written {
    /// The module it is written in: its file's, then each inline `mod`.
    scope: Vec<String>,
    path: Vec<String>,
    /// Written in a `pub use`: maybe a folder's re-export of its child's item.
    exported: bool,
    /// The name a `use` binds; none for a glob or a path in code.
    name: Option<String>,
}

/// Collects the paths a file writes, outside what only tests compile.
struct Reader {
    scope: Vec<String>,
    found: Vec<Written>,
}

impl Reader {
    fn note(&mut self, path: Vec<String>, exported: bool, name: Option<String>) {
        self.found.push(Written {
            scope: self.scope.clone(),
            path,
            exported,
            name,
        });
    }
}

/// Whether an item is compiled only for tests, which may reach anywhere.
fn for_tests(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test")
    })
}

fn attrs_of(item: &syn::Item) -> &[syn::Attribute] {
    use syn::Item;
    match item {
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::ExternCrate(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::ForeignMod(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::TraitAlias(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Union(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

impl<'ast> Visit<'ast> for Reader {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if !for_tests(attrs_of(item)) {
            visit::visit_item(self, item);
        }
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        let attrs = match item {
            syn::ImplItem::Const(i) => &i.attrs,
            syn::ImplItem::Fn(i) => &i.attrs,
            syn::ImplItem::Type(i) => &i.attrs,
            syn::ImplItem::Macro(i) => &i.attrs,
            _ => &Vec::new(),
        };
        if !for_tests(attrs) {
            visit::visit_impl_item(self, item);
        }
    }

    fn visit_trait_item(&mut self, item: &'ast syn::TraitItem) {
        let attrs = match item {
            syn::TraitItem::Const(i) => &i.attrs,
            syn::TraitItem::Fn(i) => &i.attrs,
            syn::TraitItem::Type(i) => &i.attrs,
            syn::TraitItem::Macro(i) => &i.attrs,
            _ => &Vec::new(),
        };
        if !for_tests(attrs) {
            visit::visit_trait_item(self, item);
        }
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        self.scope.push(item.ident.to_string());
        visit::visit_item_mod(self, item);
        self.scope.pop();
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let exported = !matches!(item.vis, syn::Visibility::Inherited);
        for (path, name) in expand(&item.tree) {
            self.note(path, exported, name);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        // One segment is a name in scope (or `self`, the receiver); `::x` is
        // another crate.
        if path.segments.len() > 1 && path.leading_colon.is_none() {
            let segments = path.segments.iter().map(|s| s.ident.to_string()).collect();
            self.note(segments, false, None);
        }
        visit::visit_path(self, path);
    }

    // `pub(super)` says who may see an item, not what it uses.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        visit::visit_macro(self, mac);
        let tokens = TokenBuffer::new2(mac.tokens.clone());
        let mut paths = Vec::new();
        token_paths(tokens.begin(), &mut paths);
        for path in paths {
            self.note(path, false, None);
        }
    }
}

/// `a::{b, c::{self, d as e}, f::*}` into `a::b` (binding `b`), `a::c`
/// (`c`), `a::c::d` (`e`) and `a::f` (a glob binds no one name).
fn expand(tree: &syn::UseTree) -> Vec<(Vec<String>, Option<String>)> {
    use syn::UseTree;
    // A `self` leaf is the path before it.
    let leaf = |ident: &syn::Ident| {
        if ident == "self" {
            Vec::new()
        } else {
            vec![ident.to_string()]
        }
    };
    match tree {
        UseTree::Path(p) => expand(&p.tree)
            .into_iter()
            .map(|(rest, name)| {
                let name = name.map(|n| if n == "self" { p.ident.to_string() } else { n });
                let path = std::iter::once(p.ident.to_string()).chain(rest).collect();
                (path, name)
            })
            .collect(),
        UseTree::Name(n) => vec![(leaf(&n.ident), Some(n.ident.to_string()))],
        UseTree::Rename(r) => vec![(leaf(&r.ident), Some(r.rename.to_string()))],
        UseTree::Glob(_) => vec![(Vec::new(), None)],
        UseTree::Group(g) => g.items.iter().flat_map(expand).collect(),
    }
}

/// The `a::b::c` in a macro's tokens, which syn leaves unparsed: the paths in
/// `view! { ... }` or in `format!`'s arguments. Comments are gone by now and
/// a string is one token, so neither is read as a path.
fn token_paths(mut at: Cursor, out: &mut Vec<Vec<String>>) {
    while !at.eof() {
        if let Some((inside, _, _, next)) = at.any_group() {
            token_paths(inside, out);
            at = next;
        } else if let Some((first, next)) = at.ident() {
            let mut path = vec![first.to_string()];
            at = next;
            while let Some((segment, next)) = path_separator(at).and_then(Cursor::ident) {
                path.push(segment.to_string());
                at = next;
            }
            if path.len() > 1 {
                out.push(path);
            }
        } else if let Some((_, next)) = at.token_tree() {
            at = next;
        } else {
            break;
        }
    }
}

/// Past the `::` at `at`, if there is one.
fn path_separator(at: Cursor) -> Option<Cursor> {
    let (first, at) = at.punct()?;
    let (second, at) = at.punct()?;
    (first.as_char() == ':' && second.as_char() == ':').then_some(at)
}

fn read(module: &str, source: &str) -> Vec<Written> {
    let file = syn::parse_file(source).unwrap_or_else(|e| panic!("{module}: {e}"));
    let mut reader = Reader {
        scope: module.split('/').map(str::to_string).collect(),
        found: Vec::new(),
    };
    reader.visit_file(&file);
    reader.found
}

/// The path from the crate's root that `written` names, if it is in this
/// crate: `crate::` starts at the root, `super::` at the module around where
/// it is written (a file's top level: its folder; an inline `mod`: its file),
/// `self::` and a child module's name there.
fn absolute(written: &Written, modules: &BTreeSet<Module>) -> Option<Vec<String>> {
    let mut base = written.scope.clone();
    let mut rest = written.path.as_slice();
    match rest.first()?.as_str() {
        "crate" => {
            base.clear();
            rest = &rest[1..];
        }
        "self" => rest = &rest[1..],
        "super" => {
            while rest.first().is_some_and(|s| s == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        child if modules.contains(&[base.join("/"), child.to_string()].join("/")) => {}
        // Another crate (`app::` from the server, `leptos::`), or a type's.
        _ => return None,
    }
    Some(base.into_iter().chain(rest.iter().cloned()).collect())
}

/// The longest start of `path` that is a module file, and its length.
fn longest_module(path: &[String], modules: &BTreeSet<Module>) -> Option<(Module, usize)> {
    (1..=path.len())
        .rev()
        .map(|len| (path[..len].join("/"), len))
        .find(|(m, _)| modules.contains(m))
}

fn below(module: &str, ancestor: &str) -> bool {
    module.starts_with(&format!("{ancestor}/"))
}

/// The module a path lands in, seen through a folder's re-export of an item
/// to the child that holds it.
fn resolve(
    mut path: Vec<String>,
    modules: &BTreeSet<Module>,
    reexports: &BTreeMap<Module, BTreeMap<String, Vec<String>>>,
) -> Option<Module> {
    loop {
        let (module, len) = longest_module(&path, modules)?;
        // Each re-export leads further down, so this ends.
        match path
            .get(len)
            .and_then(|item| reexports.get(&module)?.get(item))
        {
            Some(origin) => path = origin.iter().chain(&path[len + 1..]).cloned().collect(),
            None => return Some(module),
        }
    }
}

fn graph_of(sources: &BTreeMap<Module, String>) -> Graph {
    let modules: BTreeSet<Module> = sources.keys().cloned().collect();
    let found: BTreeMap<&Module, Vec<Written>> =
        sources.iter().map(|(m, s)| (m, read(m, s))).collect();
    // A folder's `pub use` of what lives below it is its table of contents,
    // not a use of its own: who names the item there depends on the child.
    let is_reexport = |module: &str, written: &Written, path: &[String]| {
        written.exported && longest_module(path, &modules).is_some_and(|(m, _)| below(&m, module))
    };
    let mut reexports: BTreeMap<Module, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for (module, written) in &found {
        for w in written {
            if let Some(path) = absolute(w, &modules)
                && let Some(name) = &w.name
                && w.scope.join("/") == **module
                && is_reexport(module, w, &path)
            {
                reexports
                    .entry((*module).clone())
                    .or_default()
                    .insert(name.clone(), path);
            }
        }
    }
    found
        .iter()
        .map(|(module, written)| {
            let deps = written
                .iter()
                .filter_map(|w| {
                    let path = absolute(w, &modules)?;
                    if is_reexport(module, w, &path) {
                        None
                    } else {
                        resolve(path, &modules, &reexports)
                    }
                })
                // Its own folder's module is where it is declared, not a use.
                .filter(|d| d != *module && !below(module, d))
                .collect();
            ((*module).clone(), deps)
        })
        .collect()
}

fn graph(src: &Path) -> Graph {
    let graph = graph_of(&sources(src));
    assert!(
        graph.len() > 10,
        "the sources in {} were read: {:?}",
        src.display(),
        graph.keys()
    );
    graph
}

/// One cycle through `start`, if any.
fn cycle_from(start: &str, graph: &Graph) -> Option<Vec<Module>> {
    fn walk(
        at: &str,
        start: &str,
        graph: &Graph,
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

/// Each cycle once, as `a -> b -> a`, told from its first module by name.
fn cycles(graph: &Graph) -> BTreeSet<String> {
    graph
        .keys()
        .filter_map(|m| cycle_from(m, graph))
        .map(|mut cycle| {
            let first = (0..cycle.len()).min_by_key(|&i| &cycle[i]).unwrap_or(0);
            cycle.rotate_left(first);
            format!("{} -> {}", cycle.join(" -> "), cycle[0])
        })
        .collect()
}

#[test]
fn no_module_imports_itself_through_others() {
    let mut found = Vec::new();
    for (name, src) in [("app/src", app_src()), ("src", server_src())] {
        found.extend(
            cycles(&graph(&src))
                .into_iter()
                .map(|c| format!("{name}: {c}")),
        );
    }
    assert!(found.is_empty(), "import cycles:\n{}", found.join("\n"));
}

#[test]
fn no_page_imports_another_page() {
    let graph = graph(&app_src());
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

/// The app's parts (its top-level files and folders), lowest first. A
/// part uses only parts in the layers below its own: never one above, nor
/// one beside it. So the parts never import each other round in a circle,
/// and a newcomer knows where a change belongs by what it needs.
const LAYERS: &[&[&str]] = &[
    // The words every part shares: names, records, a hasher.
    &["fast_hash", "cluster_tag", "audit_record"],
    // What llmgw says, and the console's errors over it.
    &["admin_api"],
    &["error", "format", "dated"],
    &["staleness", "urls", "reasons", "gpu_strip", "site_map"],
    &[
        "table",
        "theme",
        "team_links",
        "events_query",
        "event_lines",
        "estimate",
    ],
    // What the console works out of llmgw's lists.
    &["joins"],
    &["fixes"],
    &["figures"],
    &["wall"],
    &["heartbeat"],
    &["ui_settings"],
    // The server's own parts, then what runs in both, then the pages.
    &["server"],
    &["live"],
    &["server_fns"],
    &["components"],
    &["tables"],
    &["pages"],
];

/// The part of the app a module belongs to: its top-level file or folder.
fn part(module: &str) -> &str {
    module.split('/').next().unwrap_or(module)
}

/// Each arrow between two parts that goes against [`LAYERS`], with one
/// import that makes it, and the parts `LAYERS` does not place.
fn against_the_layers(graph: &Graph) -> (BTreeMap<(String, String), String>, BTreeSet<String>) {
    let layer_of = |p: &str| LAYERS.iter().position(|layer| layer.contains(&p));
    let mut against = BTreeMap::new();
    let mut unplaced = BTreeSet::new();
    for (module, deps) in graph {
        for dep in deps {
            let (from, to) = (part(module), part(dep));
            if from == to {
                continue;
            }
            match (layer_of(from), layer_of(to)) {
                (Some(a), Some(b)) if b < a => {}
                (Some(_), Some(_)) => {
                    against
                        .entry((from.to_string(), to.to_string()))
                        .or_insert_with(|| format!("{module} -> {dep}"));
                }
                (a, b) => {
                    for (p, placed) in [(from, a), (to, b)] {
                        if placed.is_none() {
                            unplaced.insert(p.to_string());
                        }
                    }
                }
            }
        }
    }
    (against, unplaced)
}

#[test]
fn the_apps_parts_use_only_the_layers_below_them() {
    let (against, unplaced) = against_the_layers(&graph(&app_src()));
    assert!(
        unplaced.is_empty(),
        "parts of the app not in LAYERS: {unplaced:?}"
    );
    let arrows: Vec<String> = against
        .iter()
        .map(|((from, to), by)| format!("{from} -> {to} (by {by})"))
        .collect();
    assert!(
        arrows.is_empty(),
        "arrows against the layers:\n{}",
        arrows.join("\n")
    );
}

#[test]
fn an_arrow_up_or_across_the_layers_is_found() {
    // What the check above would say of a wire type that reached up into
    // the server, of two parts of one layer, and of a part nobody placed.
    let graph: Graph = [
        ("admin_api/types", &["server/audit", "audit_record"][..]),
        ("error", &["format"][..]),
        ("server/audit", &["admin_api/types"][..]),
        ("newcomer", &["table"][..]),
    ]
    .into_iter()
    .map(|(m, deps)| (m.to_string(), deps.iter().map(|d| d.to_string()).collect()))
    .collect();
    let (against, unplaced) = against_the_layers(&graph);
    let arrows: Vec<(&str, &str)> = against
        .keys()
        .map(|(from, to)| (from.as_str(), to.as_str()))
        .collect();
    assert_eq!(arrows, [("admin_api", "server"), ("error", "format")]);
    assert_eq!(
        against[&("admin_api".to_string(), "server".to_string())],
        "admin_api/types -> server/audit"
    );
    assert_eq!(unplaced.into_iter().collect::<Vec<_>>(), ["newcomer"]);
}

#[test]
fn the_reader_sees_imports_through_reexports_groups_and_macros() {
    // The two checks above are only as good as this reading of the sources.
    let tree: syn::UseTree = syn::parse_str("a::{b, c::{self, d as e}, f::*}").expect("a use tree");
    let expanded: Vec<String> = expand(&tree)
        .into_iter()
        .map(|(path, name)| format!("{} as {}", path.join("::"), name.as_deref().unwrap_or("*")))
        .collect();
    assert_eq!(
        expanded,
        ["a::b as b", "a::c as c", "a::c::d as e", "a::f as *"]
    );

    // A crate made up for this: `p/q` writes a path of each kind.
    let made_up: BTreeMap<Module, String> = [
        ("p", "pub mod q; pub mod r; pub use r::R;"),
        (
            "p/q",
            r#"
            use crate::{u::*, v::{self, V}};
            pub fn f() -> String {
                let _ = "http://x"; crate::w::f();
                view! { <p>{crate::x::X}</p> }
            }
            pub fn g() { let _ = crate::y::Z; } // crate::t::T
            mod inner { use super::super::r::R; }
            #[cfg(test)]
            mod tests { use crate::s::S; }
            "#,
        ),
        ("p/r", ""),
        ("r", ""),
        ("s", ""),
        ("t", ""),
        ("u", ""),
        ("v", ""),
        ("w", ""),
        ("x", ""),
        ("y", "mod z; pub use z::Z; fn f() { z::g() }"),
        ("y/z", "pub struct Z;"),
    ]
    .into_iter()
    .map(|(m, s)| (m.to_string(), s.to_string()))
    .collect();
    let made_up = graph_of(&made_up);
    let expected = ["p/r", "u", "v", "w", "x", "y/z"];
    assert_eq!(
        made_up["p/q"],
        expected.map(String::from).into(),
        "{made_up:?}"
    );
    // A folder's re-exports are not its uses; its code's are.
    assert!(made_up["p"].is_empty(), "{made_up:?}");
    assert_eq!(made_up["y"], ["y/z".to_string()].into(), "{made_up:?}");

    let app = graph(&app_src());
    let nodes_page = &app["pages/nodes"];
    assert!(nodes_page.contains("server_fns/nodes"), "{nodes_page:?}");
    assert!(nodes_page.contains("tables/nodes"), "{nodes_page:?}");
    assert!(
        app["server_fns/nodes"].contains("server/context"),
        "{app:?}"
    );
    let server = graph(&server_src());
    let router = &server["router"];
    assert!(router.contains("pipeline"), "{router:?}");
    assert!(router.contains("readiness"), "{router:?}");
}

/// The attributes that let unsafe code in or forbid it, anywhere in a
/// file's items (`cfg_attr` included).
#[derive(Default)]
struct UnsafeAttributes {
    allowed: usize,
    forbidden: bool,
}

impl<'ast> Visit<'ast> for UnsafeAttributes {
    fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
        let text = match &attr.meta {
            syn::Meta::List(list) => format!(
                "{} {}",
                attr.path()
                    .get_ident()
                    .map(ToString::to_string)
                    .unwrap_or_default(),
                list.tokens
            ),
            _ => return,
        };
        if !text.contains("unsafe_code") {
            return;
        }
        if text.contains("allow") || text.contains("expect") || text.contains("warn") {
            self.allowed += 1;
        }
        if matches!(attr.style, syn::AttrStyle::Inner(_)) && text.starts_with("forbid") {
            self.forbidden = true;
        }
    }
}

#[test]
fn unsafe_code_is_forbidden_in_every_library_and_allowed_once_in_the_binary() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut allowed = BTreeMap::new();
    let mut forbidden = BTreeSet::new();
    for dir in ["src", "app/src", "crates/journal/src", "tests", "app/tests"] {
        let mut all = Vec::new();
        files(&root.join(dir), &mut all);
        for file in all {
            let source = std::fs::read_to_string(&file).expect("utf-8");
            let parsed = syn::parse_file(&source).expect("parses");
            let mut found = UnsafeAttributes::default();
            found.visit_file(&parsed);
            let rel = file.strip_prefix(root).expect("under the root");
            let rel = rel.to_string_lossy().replace('\\', "/");
            if found.allowed > 0 {
                allowed.insert(rel.clone(), found.allowed);
            }
            if found.forbidden {
                forbidden.insert(rel);
            }
        }
    }
    assert_eq!(
        forbidden,
        BTreeSet::from([
            "app/src/lib.rs".to_string(),
            "crates/journal/src/lib.rs".to_string(),
            "src/lib.rs".to_string()
        ]),
        "each library forbids unsafe code at its root"
    );
    assert_eq!(
        allowed,
        BTreeMap::from([("src/allocator.rs".to_string(), 1)]),
        "the binary's one call into glibc is the only exception"
    );
}
