//! The fixes beside a rejection, and the headline that adds them up, with
//! the action itself where the console can take it.

use leptos::prelude::*;

use super::UncordonButton;
use crate::fixes::{Fix, Outlook};
use crate::format;
use crate::ui_settings::UiSettings;
use crate::urls;

/// Where an operator acts on `fix`: a button, a dialog, or the page to read.
#[component]
fn FixAction(fix: Fix) -> impl IntoView {
    let read_only = use_context::<UiSettings>().unwrap_or_default().read_only;
    match fix {
        Fix::Uncordon { ref node, .. } if !read_only && fix.in_reach() => {
            view! { <UncordonButton node=node.clone() /> }.into_any()
        }
        Fix::Collect { node, .. } if !read_only => view! {
            <a class="button" href=urls::collect_dialog(Some(&node), None)>
                {format!("Collect on {node}…")}
            </a>
        }
        .into_any(),
        Fix::IdleReplicas { replicas, .. } => replicas
            .into_iter()
            .map(|r| view! { " " <a href=urls::replicas_of(&r.model)>{r.id}</a> })
            .collect_view()
            .into_any(),
        fix => {
            let node = fix.node().to_string();
            view! { " " <a href=urls::node(&node)>{format!("{node} →")}</a> }.into_any()
        }
    }
}

fn kind(fix: &Fix) -> &'static str {
    match fix {
        Fix::Uncordon { .. } => "uncordon",
        Fix::Collect { .. } => "collect",
        Fix::UnhealthyGpus { .. } => "unhealthy",
        Fix::IdleReplicas { .. } => "idle",
        Fix::Unreported { .. } => "unreported",
        Fix::NoLongerTrue { .. } => "no-longer-true",
    }
}

/// The fixes for one rejection; a dash when the console sees none.
#[component]
pub fn FixHints(fixes: Vec<Fix>) -> impl IntoView {
    if fixes.is_empty() {
        return view! { <span class="muted">{format::DASH}</span> }.into_any();
    }
    view! {
        <ul class="fixes">
            {fixes
                .into_iter()
                .map(|fix| {
                    let (kind, in_reach, sentence) = (kind(&fix), fix.in_reach(), fix.sentence());
                    let held = fix.held().then_some("true");
                    view! {
                        <li class="fix" data-fix=kind data-held=held class:in-reach=in_reach>
                            <span>{sentence}</span>
                            " "
                            <FixAction fix />
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
    .into_any()
}

/// How many rejections have a fix in reach, and every action that would
/// remove some, the one that removes most first.
#[component]
pub fn OutlookBanner(outlook: Outlook) -> impl IntoView {
    let total = outlook.rejections;
    view! {
        <section class="outlook" aria-label="What would change this">
            <p class="outlook-sentence">{outlook.sentence()}</p>
            {(!outlook.remedies.is_empty())
                .then(|| {
                    view! {
                        <ul class="remedies">
                            {outlook
                                .remedies
                                .into_iter()
                                .map(|m| {
                                    let kind = kind(&m.fix);
                                    let held = m.fix.held().then_some("true");
                                    let sentence = format!("{} (removes {} of {total})", m.fix.sentence(), m.removes);
                                    view! {
                                        <li class="remedy" data-fix=kind data-held=held>
                                            <span>{sentence}</span>
                                            " "
                                            <FixAction fix=m.fix />
                                        </li>
                                    }
                                })
                                .collect_view()}
                        </ul>
                    }
                })}
        </section>
    }
}
