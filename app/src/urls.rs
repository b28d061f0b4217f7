//! Every address the console builds, and the reading of the ones it gets.
//! Names go into URLs encoded, so `/`, `:`, spaces, `&` and `#` in a model or
//! node name can never change what a link means; and the parameters that
//! only make sense once (a dialog, a receipt) are listed here, once.

use std::sync::Arc;

use crate::admin_api::types::NodeState;
use crate::format::ModelStatus;

/// The start of the addresses of the cluster a part of a page is about
/// (`/c/eu`), provided by the server for the request and again by a part
/// of a page about another cluster (a row of the overview of several).
#[derive(Clone, Debug)]
pub struct ClusterBase(pub Arc<str>);

/// The start of the current cluster's addresses, or nothing on a page
/// about no one cluster.
pub fn base() -> String {
    #[cfg(feature = "ssr")]
    {
        leptos::prelude::use_context::<ClusterBase>()
            .map(|b| b.0.to_string())
            .unwrap_or_default()
    }
    // In the browser, the page's own address says which cluster it is of.
    #[cfg(all(feature = "hydrate", not(feature = "ssr")))]
    {
        let path = leptos::prelude::window()
            .location()
            .pathname()
            .unwrap_or_default();
        crate::cluster_tag::split_scoped(&path)
            .map(|(id, _)| crate::cluster_tag::base_of(id))
            .unwrap_or_default()
    }
    #[cfg(not(any(feature = "ssr", feature = "hydrate")))]
    {
        String::new()
    }
}

/// `path` (`/nodes?q=a`) among the current cluster's pages. Every address
/// of a cluster's page is built through this, so none leaves the cluster.
pub fn scoped(path: &str) -> String {
    let base = base();
    if base.is_empty() {
        path.to_string()
    } else if path == "/" {
        format!("{base}/")
    } else {
        format!("{base}{path}")
    }
}

/// Query parameters that belong to one moment: the dialog being shown, the
/// receipt of the action just taken, Leptos's error of a form posted without
/// JavaScript. They never survive a change of view or the return from an
/// action.
pub const ONE_SHOT: [&str; 6] = ["confirm", "node", "token", "receipt", "__err", "__path"];

/// The parameters that narrow a table (`?state=ready`) or lay a page out
/// (`?group=node`): the only ones a view carries from link to link.
pub const FACETS: [&str; 6] = ["state", "unhealthy", "status", "model", "errors", "group"];

pub fn is_facet(param: &str) -> bool {
    FACETS.contains(&param)
}

pub fn is_one_shot(param: &str) -> bool {
    ONE_SHOT.contains(&param)
}

pub fn node(id: &str) -> String {
    scoped(&format!("/nodes/{}", encode_component(id)))
}

/// The explain-placement page, the one people paste into a chat.
pub fn placement(model: &str) -> String {
    scoped(&format!("/models/{}/placement", encode_component(model)))
}

pub fn replicas_of(model: &str) -> String {
    scoped(&format!("/replicas?model={}", encode_component(model)))
}

pub fn nodes_in_state(state: &NodeState) -> String {
    scoped(&format!(
        "/nodes?state={}",
        encode_component(state.as_str())
    ))
}

pub fn models_with_status(status: ModelStatus) -> String {
    scoped(&format!("/models?status={}", status.slug()))
}

/// The model named by a `/models/*rest` path, or `None` when the path is not
/// a placement page. Both the encoded form (`meta-llama%2FLlama...`) and a
/// hand-typed one with a bare `/` name the same model.
pub fn model_from_placement_path(rest: &str) -> Option<String> {
    let name = rest.strip_suffix("/placement")?;
    let name = decode_component(name);
    (!name.is_empty()).then_some(name)
}

/// The confirmation dialog for `action` on `node`, opened over the page at
/// `here` (a path and query without one-shot parameters).
pub fn node_dialog(here: &str, action: &str, node: &str) -> String {
    with_params(here, &[("confirm", action), ("node", node)])
}

/// The id of the link that opens `action`'s dialog for `node`: where focus
/// goes back when the dialog closes, by the fragment of its Cancel link.
pub fn opener_id(action: &str, node: &str) -> String {
    format!("{action}-{}", encode_component(node))
}

/// `back`, landing on the link that opened `action`'s dialog for `node`.
pub fn back_to_opener(back: &str, action: &str, node: &str) -> String {
    format!("{back}#{}", opener_id(action, node))
}

/// The collection dialog, for one node or (`None`) for every node, showing
/// what the signed confirmation `token` covers (or, without one, offering
/// to list it).
pub fn collect_dialog(node: Option<&str>, token: Option<&str>) -> String {
    let mut pairs = vec![("confirm", "collect")];
    if let Some(node) = node {
        pairs.push(("node", node));
    }
    if let Some(token) = token {
        pairs.push(("token", token));
    }
    with_params(&scoped("/weights"), &pairs)
}

/// `url` with `pairs` appended to its query.
pub fn with_params(url: &str, pairs: &[(&str, &str)]) -> String {
    let separator = if url.contains('?') { '&' } else { '?' };
    let owned: Vec<(String, String)> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    format!("{url}{separator}{}", encode_query(&owned))
}

/// `path_and_query` without its one-shot parameters: where an action returns
/// to, and what a dialog's "Cancel" goes back to.
pub fn without_one_shot(path_and_query: &str) -> String {
    without_params(path_and_query, |key| {
        is_one_shot(key) || !is_view_param(key)
    })
}

/// What a view's address may carry from link to link: its facets, its
/// filter, sort and page, and the wall's layout. Anything else in a URL
/// is dropped rather than copied into every link of the page.
pub fn is_view_param(key: &str) -> bool {
    is_facet(key)
        || matches!(
            key,
            "q" | "sort" | "desc" | "page" | "compact" | "cols" | "panels" | "cycle" | "clusters"
        )
}

/// No view parameter's value is longer: a filter keeps 16 words of 64
/// characters.
const VIEW_VALUE_LIMIT: usize = 1_100;

/// `path_and_query` without its filter (`?q=`): what `Esc` in a table goes to.
pub fn without_filter(path_and_query: &str) -> String {
    without_params(path_and_query, |key| key == "q")
}

/// `path_and_query` without the parameters `drop` names, each other one
/// once: a parameter repeated counts as its last value, as a table reads
/// it, so that `desc=0&` seven thousand times is not copied into every
/// link of a page.
fn without_params(path_and_query: &str, drop: impl Fn(&str) -> bool) -> String {
    let Some((path, query)) = path_and_query.split_once('?') else {
        return path_and_query.to_string();
    };
    let mut seen = std::collections::HashSet::new();
    let mut kept: Vec<&str> = query
        .split('&')
        .rev()
        .filter(|pair| {
            let key = decode_component(pair.split('=').next().unwrap_or_default());
            // Seen before its length is judged: a last value too long
            // drops the parameter, never brings back an earlier one.
            !pair.is_empty() && !drop(&key) && seen.insert(key) && pair.len() <= VIEW_VALUE_LIMIT
        })
        .collect();
    kept.reverse();
    if kept.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{}", kept.join("&"))
    }
}

/// A location's path and search (with or without its `?`) as one address.
pub fn path_and_query(path: &str, search: &str) -> String {
    match search.trim_start_matches('?') {
        "" => path.to_string(),
        query => format!("{path}?{query}"),
    }
}

/// Where a form may send the browser back to: a path on this console, never
/// another site, and nothing at all when `back` is not plainly one; on a
/// page of a cluster, a page of that cluster.
pub fn local_return_path(back: Option<&str>, fallback: &str) -> String {
    return_path_within(back, fallback, &base())
}

/// The same, within the cluster whose addresses start with `base` (none:
/// anywhere on this console).
pub fn return_path_within(back: Option<&str>, fallback: &str, base: &str) -> String {
    let within = |b: &str| {
        base.is_empty()
            || b.strip_prefix(base)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['/', '?']))
    };
    match back {
        Some(b)
            if b.starts_with('/')
                && !b.starts_with("//")
                && !b.contains('\\')
                && !b.chars().any(char::is_control)
                && within(b) =>
        {
            without_one_shot(b)
        }
        _ => fallback.to_string(),
    }
}

/// `k=v&k2=v2`, each part percent-encoded.
pub fn encode_query(pairs: &[(String, String)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", encode_component(k), encode_component(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// Encodes a value for a URL path segment or query value: everything but
/// unreserved characters.
pub fn encode_component(s: &str) -> String {
    use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
    const KEEP: &AsciiSet = &NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~');
    utf8_percent_encode(s, KEEP).to_string()
}

pub fn decode_component(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}

/// The page being shown, without its one-shot parameters, from the router
/// (which sees the address within the cluster), under its cluster.
pub fn here() -> String {
    use leptos::prelude::GetUntracked;
    let location = leptos_router::hooks::use_location();
    scoped(&without_one_shot(&path_and_query(
        &location.pathname.get_untracked(),
        &location.search.get_untracked(),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn esc_drops_the_filter_and_keeps_the_rest() {
        assert_eq!(
            without_filter("/nodes?q=h100&sort=gpus"),
            "/nodes?sort=gpus"
        );
        assert_eq!(without_filter("/nodes?q=h100"), "/nodes");
        assert_eq!(without_filter("/nodes?sort=id"), "/nodes?sort=id");
        assert_eq!(path_and_query("/nodes", "?q=a"), "/nodes?q=a");
        assert_eq!(path_and_query("/nodes", ""), "/nodes");
    }

    #[test]
    fn names_survive_a_round_trip_through_a_url() {
        for name in [
            "meta-llama/Llama-3.1-70B-Instruct",
            "qwen2.5:7b",
            "acme/support bot:v2",
            "a&b#c?d%",
        ] {
            let encoded = encode_component(name);
            assert!(!encoded.contains('/') && !encoded.contains(' ') && !encoded.contains('#'));
            assert_eq!(decode_component(&encoded), name);
            let path = placement(name);
            let rest = path.trim_start_matches("/models/");
            assert_eq!(model_from_placement_path(rest).as_deref(), Some(name));
        }
        assert_eq!(
            model_from_placement_path("meta-llama/Llama-3.1-70B-Instruct/placement").as_deref(),
            Some("meta-llama/Llama-3.1-70B-Instruct")
        );
        assert_eq!(
            model_from_placement_path("acme%2Fsupport%20bot%3Av2/placement").as_deref(),
            Some("acme/support bot:v2")
        );
        assert_eq!(model_from_placement_path("qwen2.5:7b"), None);
        assert_eq!(model_from_placement_path("/placement"), None);
        assert_eq!(placement("qwen2.5:7b"), "/models/qwen2.5%3A7b/placement");
    }

    #[test]
    fn one_shot_parameters_go_and_the_view_stays() {
        assert_eq!(
            without_one_shot("/nodes?q=h100&confirm=drain&node=gpu-a&receipt=ab&sort=gpus"),
            "/nodes?q=h100&sort=gpus"
        );
        assert_eq!(without_one_shot("/weights?confirm=collect"), "/weights");
        assert_eq!(without_one_shot("/nodes"), "/nodes");
    }

    #[test]
    fn a_repeated_parameter_is_kept_once_with_its_last_value() {
        let repeated = format!(
            "/nodes?{}desc=1&q=a&state=ready&state=cordoned",
            "desc=0&".repeat(7_000)
        );
        assert_eq!(
            without_one_shot(&repeated),
            "/nodes?desc=1&q=a&state=cordoned"
        );
        assert_eq!(without_one_shot("/nodes?%73ort=a&sort=b"), "/nodes?sort=b");
    }

    #[test]
    fn a_return_path_stays_on_this_console() {
        assert_eq!(
            local_return_path(Some("https://evil.example/"), "/nodes"),
            "/nodes"
        );
        assert_eq!(
            local_return_path(Some("//evil.example/"), "/nodes"),
            "/nodes"
        );
        assert_eq!(
            local_return_path(Some("/\\evil.example"), "/nodes"),
            "/nodes"
        );
        assert_eq!(local_return_path(None, "/nodes"), "/nodes");
        assert_eq!(
            local_return_path(Some("/nodes?q=h100&confirm=drain&receipt=ab"), "/"),
            "/nodes?q=h100"
        );
    }

    #[test]
    fn a_return_path_stays_in_its_cluster() {
        assert_eq!(
            return_path_within(Some("/c/us/nodes"), "/c/eu/", "/c/eu"),
            "/c/eu/"
        );
        assert_eq!(
            return_path_within(Some("/c/eu-2/nodes"), "/c/eu/", "/c/eu"),
            "/c/eu/"
        );
        assert_eq!(
            return_path_within(Some("/c/eu/nodes?q=a"), "/c/eu/", "/c/eu"),
            "/c/eu/nodes?q=a"
        );
        assert_eq!(return_path_within(Some("/nodes"), "/", ""), "/nodes");
    }

    #[test]
    fn dialogs_open_over_the_page_they_belong_to() {
        assert_eq!(
            node_dialog("/nodes?q=a b", "drain", "gpu/1"),
            "/nodes?q=a b&confirm=drain&node=gpu%2F1"
        );
        assert_eq!(
            collect_dialog(Some("gpu-a"), None),
            "/weights?confirm=collect&node=gpu-a"
        );
        assert_eq!(
            collect_dialog(None, Some("t.s")),
            "/weights?confirm=collect&token=t.s"
        );
        assert_eq!(
            models_with_status(ModelStatus::NotPlaced),
            "/models?status=not-placed"
        );
    }
}
