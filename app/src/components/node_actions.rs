//! Cordon, uncordon and drain: the buttons on a node's row and page, and the
//! confirmation each asks for. The server re-checks all of it.

use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_router::hooks::use_query_map;

use super::{ConfirmDialog, CtlCommand, SinceNote};
use crate::admin_api::types::{NodeState, NodeView, TargetState};
use crate::joins::DrainPreview;
use crate::live::ErrorPanel;
use crate::server_fns::nodes::{SetNodeState, preview_drain};
use crate::ui_settings::UiSettings;
use crate::{format, urls};

/// The buttons for one node. Hidden on a read-only console (the server
/// refuses the change there anyway).
#[component]
pub fn NodeActions(node: NodeView) -> impl IntoView {
    let read_only = use_context::<UiSettings>().unwrap_or_default().read_only;
    if read_only {
        return ().into_any();
    }
    let back = urls::here();
    let id = node.id.clone();
    let cordoned = node.state.is_cordoned();
    let drain = (node.state != NodeState::Draining).then(|| {
        view! {
            <a
                class="button"
                id=urls::opener_id("drain", &id)
                href=urls::node_dialog(&back, "drain", &id)
                aria-label=format!("Drain {id}")
            >
                "Drain"
            </a>
        }
    });
    view! {
        <div class="node-actions">
            {if cordoned {
                view! { <UncordonButton node=id.clone() /> }.into_any()
            } else {
                view! {
                    <a
                        class="button"
                        id=urls::opener_id("cordon", &id)
                        href=urls::node_dialog(&back, "cordon", &id)
                        aria-label=format!("Cordon {id}")
                    >
                        "Cordon"
                    </a>
                }
                    .into_any()
            }}
            {drain}
        </div>
    }
    .into_any()
}

/// Uncordon asks first, as cordon and drain do: a cordon is often someone's
/// deliberate hold, and the dialog says whose and why. The caller hides it
/// on a read-only console; the server refuses it there anyway.
#[component]
pub fn UncordonButton(node: String) -> impl IntoView {
    view! {
        <a
            class="button"
            id=urls::opener_id("uncordon", &node)
            href=urls::node_dialog(&urls::here(), "uncordon", &node)
            aria-label=format!("Uncordon {node}")
        >
            "Uncordon"
        </a>
    }
}

/// The confirmation for `?confirm=cordon|drain|uncordon&node=ID`, with a
/// drain's preview (the replicas that will move and the models that dip
/// below their minimum while they do) and an uncordon's hold (who set the
/// state, when and why).
#[component]
pub fn NodeActionDialog() -> impl IntoView {
    let params = use_query_map();
    let request = Memo::new(move |_| {
        params.with(|p| {
            let state = match p.get("confirm").as_deref() {
                Some("cordon") => Some(TargetState::Cordoned),
                Some("drain") => Some(TargetState::Draining),
                Some("uncordon") => Some(TargetState::Ready),
                _ => None,
            };
            state.zip(p.get("node").filter(|n| !n.is_empty()))
        })
    });
    move || {
        request.get().map(|(state, node)| {
            view! { <NodeActionConfirm state node /> }
        })
    }
}

/// Opens only for a node the console lists: a link made by someone else
/// cannot put a name of its choosing into the dialog or its command.
#[component]
fn NodeActionConfirm(state: TargetState, node: String) -> impl IntoView {
    let preview = {
        let node = node.clone();
        Resource::new(|| (), move |_| preview_drain(node.clone()))
    };
    view! {
        <Suspense fallback=|| view! { <p class="loading">"Looking the node up…"</p> }>
            {move || preview.get().map(|outcome| match outcome {
                Ok(report) if report.listed => {
                    view! { <NodeActionDialogFor state node=node.clone() report /> }.into_any()
                }
                Ok(_) => view! {
                    <section class=crate::live::markup::ERROR_PANEL_CLASS role="alert">
                        <h2>"No such node"</h2>
                        <p class="error-message">
                            "The link asks to change a node this console does not list; nothing was opened."
                        </p>
                    </section>
                }
                    .into_any(),
                Err(error) => view! { <ErrorPanel error /> }.into_any(),
            })}
        </Suspense>
    }
}

#[component]
fn NodeActionDialogFor(state: TargetState, node: String, report: DrainPreview) -> impl IntoView {
    let back = urls::here();
    let (verb, ctl) = match state {
        TargetState::Draining => ("Drain", "drain"),
        TargetState::Ready => ("Uncordon", "uncordon"),
        TargetState::Cordoned => ("Cordon", "cordon"),
    };
    let explanation = match state {
        TargetState::Draining => {
            "New work stops going to this node and its replicas move elsewhere, one at a \
             time; each replacement comes up before the original stops."
        }
        TargetState::Ready if report.state == "draining" => {
            "This ends its drain: the replicas that have not moved yet stay here, and \
             placement may use this node again from now on."
        }
        TargetState::Ready => "Placement may use this node again from now on.",
        TargetState::Cordoned => {
            "New work stops going to this node. What runs there keeps running."
        }
    };
    let hold = (state == TargetState::Ready).then(|| {
        let line = match &report.state_since {
            Some(s) if s.by.is_some() || s.reason.is_some() => format!(
                "Set on purpose{}. Uncordon only if that no longer stands.",
                crate::fixes::who_and_why(s)
            ),
            Some(s) => format!(
                "Nobody said through a console who set its state, or why; it has been so {}.",
                format::since(s)
            ),
            None => "The console's journal does not know who set its state, or why.".to_string(),
        };
        view! { <p class="hold" class:warn=report.state_since.as_ref().is_some_and(|s| s.by.is_some() || s.reason.is_some())>{line}</p> }
    });
    view! {
        <ConfirmDialog title=format!("{verb} {node}?") cancel_href=urls::back_to_opener(&back, ctl, &node)>
            <p>{explanation}</p>
            {hold}
            {(!report.on_unhealthy.is_empty()).then(|| view! {
                <p class="warn on-unhealthy">{format!(
                    "On an unhealthy GPU here: {}.",
                    report.on_unhealthy.join(", ")
                )}</p>
            })}
            {(report.unhealthy_unplaced > 0 && !report.replicas.is_empty()).then(|| view! {
                <p class="warn on-unhealthy">{format!(
                    "{} here names no GPU the console can place: any replica here may sit on it.",
                    crate::format::count(report.unhealthy_unplaced, "unhealthy line", "unhealthy lines")
                )}</p>
            })}
            {(state == TargetState::Draining).then(|| view! { <DrainPreviewView report /> })}
            <CtlCommand command=format::ctl_command_on(&crate::ui_settings::UiSettings::current().admin_api, &[ctl], &[&node]) />
            <form method="post" action=urls::scoped(SetNodeState::PATH) class="confirm-form">
                <input type="hidden" name="node" value=node.clone() />
                <input type="hidden" name="state" value=state.as_str() />
                <input type="hidden" name="confirm" value="yes" />
                <input type="hidden" name="back" value=back />
                <label class="reason">
                    "Reason (optional; the console's journal keeps it, llmgw does not)"
                    <input
                        type="text"
                        name="reason"
                        maxlength=llmgw_journal::record::NOTE_LIMIT.to_string()
                        placeholder="NVLink errors, RMA 4411"
                        autocomplete="off"
                        // Where the hands are once the dialog opens, with
                        // JavaScript or without.
                        autofocus
                    />
                </label>
                <button type="submit" class="danger">{format!("{verb} {node}")}</button>
            </form>
        </ConfirmDialog>
    }
}

#[component]
fn DrainPreviewView(report: DrainPreview) -> impl IntoView {
    let moving = report.replicas.len();
    view! {
        <div class="drain-preview">
            <h3>{format::count(moving, "replica moves", "replicas move")}</h3>
            {(moving > 0)
                .then(|| {
                    view! {
                        <ul class="moving">
                            {report
                                .replicas
                                .into_iter()
                                .map(|crate::dated::Dated { row: r, since }| {
                                    let stranded = report.stranded.contains(&r.id);
                                    view! {
                                        <li class:stranded=stranded>
                                            <code>{r.id}</code>
                                            " "
                                            {r.model}
                                            " ("
                                            {r.state}
                                            <SinceNote since />
                                            ")"
                                            {stranded.then(|| view! {
                                                <span class="warn">" no other node of its class has room for it now: it would wait"</span>
                                            })}
                                        </li>
                                    }
                                })
                                .collect_view()}
                        </ul>
                    }
                })}
            {if report.at_risk.is_empty() {
                view! { <p class="ok">"No model drops below its minimum while they move."</p> }.into_any()
            } else {
                view! {
                    <p class="warn">"These models drop below their minimum while their replicas move:"</p>
                    <ul class="at-risk">
                        {report
                            .at_risk
                            .into_iter()
                            .map(|m| {
                                view! {
                                    <li>
                                        <strong>{m.model}</strong>
                                        {format!(": {} ready of {} wanted, {} while moving", m.ready, m.min, m.ready_during_move)}
                                    </li>
                                }
                            })
                            .collect_view()}
                    </ul>
                }
                    .into_any()
            }}
        </div>
    }
}
