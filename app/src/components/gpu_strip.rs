//! A node's GPUs one by one, on its page: free, held by which replica's
//! shard, or unhealthy and why, so that a bad GPU is joined to what runs
//! on it.

use leptos::prelude::*;

use crate::admin_api::types::{NodeView, ReplicaView};
use crate::gpu_strip::strip;
use crate::urls;

/// Lines that name no GPU the console can read are shown as they are at
/// the end, never hidden behind a GPU drawn as free.
#[component]
pub fn GpuStrip(node: NodeView, replicas: Vec<ReplicaView>) -> impl IntoView {
    let (slots, unplaced) = strip(&node, &replicas);
    (!slots.is_empty() || !unplaced.is_empty()).then(|| {
        view! {
            <section class="gpu-strip">
                <h2>"GPUs, one by one"</h2>
                <ol class="gpus">
                    {slots
                        .into_iter()
                        .map(|s| {
                            let state = match (&s.unhealthy, &s.held_by) {
                                (Some(_), _) => "unhealthy",
                                (None, Some(_)) => "held",
                                (None, None) => "free",
                            };
                            let holder = s.held_by.map(|(replica, shard, model)| view! {
                                " " <a href=urls::replicas_of(&model) title=model.clone()>{shard}</a>
                                <span class="visually-hidden">{format!(" of {replica}, {model}")}</span>
                            });
                            let why = s.unhealthy.map(|line| view! { " " <span class="why">{line}</span> });
                            view! {
                                <li class=format!("gpu {state}") data-gpu=s.index.to_string()>
                                    <span class="index">{format!("GPU {}", s.index)}</span>
                                    " " <span class="state">{state}</span>
                                    {holder}
                                    {why}
                                </li>
                            }
                        })
                        .collect_view()}
                    {unplaced
                        .into_iter()
                        .map(|line| view! {
                            <li class="gpu unhealthy unplaced">
                                <span class="index">"GPU ?"</span>
                                " " <span class="state">"unhealthy"</span>
                                " " <span class="why">{line}</span>
                            </li>
                        })
                        .collect_view()}
                </ol>
            </section>
        }
    })
}
