//! `/jump?q=`: the jump-to box's answers, nodes, models and replicas of
//! every cluster, best first. The header's box (Ctrl+K, or `/` where no
//! table has a filter) sends here; without JavaScript it is a GET form.

use leptos::context::Provider;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::components::ClusterBadge;
use crate::live::Live;
use crate::server_fns::jump::{HITS, HitKind, JumpHit, JumpHits, QUERY_CHARS, jump_to};
use crate::urls::{self, ClusterBase};

#[component]
pub fn JumpPage() -> impl IntoView {
    let params = use_query_map();
    // Cut as the server cuts it: no name is longer.
    let q = Memo::new(move |_| {
        params.with(|p| {
            p.get("q")
                .unwrap_or_default()
                .chars()
                .take(QUERY_CHARS)
                .collect::<String>()
        })
    });
    let hits = Resource::new(move || q.get(), jump_to);
    let typed = q.get_untracked();
    view! {
        <Title text=crate::site_map::JUMP.title />
        <h1>"Jump to"</h1>
        <form method="get" action=urls::scoped("/jump") role="search" class="jump-form">
            <label for="jump-q">"A node, a model or a replica, in every cluster: "</label>
            <input
                id="jump-q"
                type="search"
                name="q"
                value=typed.clone()
                maxlength=QUERY_CHARS
                autofocus=typed.trim().is_empty()
            />
            <button type="submit">"Find"</button>
        </form>
        <Live resource=hits render=move |found: JumpHits| render_hits(found, q.get_untracked()) />
    }
}

fn render_hits(found: JumpHits, q: String) -> AnyView {
    if q.trim().is_empty() {
        return view! { <p class="empty">"Type part of a name: gpu-h100-01, llama, a replica's id."</p> }
            .into_any();
    }
    let JumpHits {
        hits,
        matched,
        unread,
        several,
    } = found;
    let count = match matched {
        0 => format!("Nothing is called anything like {q:?}."),
        n if n > HITS => format!("{n} names hold {q:?}; the {HITS} closest:"),
        1 => "One name holds it:".to_string(),
        n => format!("{n} names hold it:"),
    };
    // Enter opens the best: focus is on it.
    let list = hits
        .into_iter()
        .enumerate()
        .map(|(i, hit)| hit_item(hit, i == 0, several))
        .collect_view();
    view! {
        {unread
            .into_iter()
            .map(|u| view! { <p class="warn">{format!("Not searched: {u}")}</p> })
            .collect_view()}
        <p class="count">{count}</p>
        <ol class="jump-hits">{list}</ol>
        {(matched > HITS).then(|| view! {
            <p>
                <a href=format!("{}?q={}", urls::scoped("/nodes"), urls::encode_component(&q))>"Every node that holds it"</a>
                " · "
                <a href=format!("{}?q={}", urls::scoped("/models"), urls::encode_component(&q))>"every model"</a>
            </p>
        })}
    }
    .into_any()
}

fn hit_item(hit: JumpHit, first: bool, several: bool) -> AnyView {
    let base = hit.cluster.base();
    let here = hit.here;
    let link = move || {
        let href = match hit.kind {
            HitKind::Node => urls::node(&hit.name),
            HitKind::Model => urls::placement(&hit.name),
            HitKind::Replica => format!(
                "{}?q={}",
                urls::scoped("/replicas"),
                urls::encode_component(&hit.name)
            ),
        };
        view! {
            <a href=href autofocus=first>{hit.name.clone()}</a>
            " "
            <span class="kind">{hit.kind.word()}</span>
            {hit.of.clone().map(|m| view! { <span class="of">{format!(" of {m}")}</span> })}
            {several.then(|| view! { " " <ClusterBadge tag=hit.cluster.clone() /> })}
        }
    };
    // A hit in another cluster links into that cluster's pages.
    if here {
        view! { <li>{link()}</li> }.into_any()
    } else {
        view! { <li><Provider value=ClusterBase(base.into())>{link()}</Provider></li> }.into_any()
    }
}
