//! The journal's records as an operator reads them: one line per action.
//! A cordon through the console is three records (the attempt as sent, as
//! done, and the transition llmgw's next list showed, which carries no
//! actor); the events page and every history show it as one line,
//! "cordoned by jane: RMA 5120 — done", with the transition it caused.

use crate::audit_record::Outcome;
use llmgw_journal::event::{Event, NODE_STATE_ACTION};
use llmgw_journal::record::{ATTEMPT_LEAD, EventKind, JournalEvent};

/// One line of the events table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventLine {
    /// The newest record folded in (an attempt's outcome, or the
    /// transition itself): what "when" shows.
    pub event: JournalEvent,
    /// For an attempt: the transition it caused, seen in llmgw's lists
    /// after it ("ready → cordoned").
    pub caused: Option<String>,
}

impl EventLine {
    /// What happened, in operator words: "cordoned by jane: RMA 5120 —
    /// done", "drain by bob — refused because …", or, for what llmgw's
    /// lists showed, the kind and the change ("node state: ready →
    /// cordoned").
    pub fn sentence(&self) -> String {
        let e = &self.event;
        let Some(Event::Attempt(a)) = e.event() else {
            let change = e.change_text();
            return if change.is_empty() {
                e.kind.label().to_string()
            } else {
                format!("{}: {change}", e.kind.label())
            };
        };
        let words = ActionWords::of(a.action, a.state);
        let by = match a.actor {
            "" => String::new(),
            actor => format!(" by {actor}"),
        };
        let detail = a.note.as_deref().unwrap_or_default();
        let why = if detail.is_empty() {
            String::new()
        } else {
            format!(": {detail}")
        };
        match a.outcome {
            Outcome::Done => format!("{}{by}{why} — done", words.done),
            Outcome::Sent => format!("{}{by}{why} — sent, no answer recorded", words.asked),
            Outcome::Refused => format!("{}{by} — refused because {detail}", words.asked),
            Outcome::Failed => format!("{}{by} — failed because {detail}", words.asked),
        }
    }
}

/// An action as the operator names it: asked for ("cordon") and done
/// ("cordoned").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionWords {
    pub asked: String,
    pub done: String,
}

impl ActionWords {
    /// `function` as the audit names it ("set_node_state",
    /// "collect_weights"), with the state it asked a node to take. One the
    /// console does not know keeps its name.
    pub fn of(function: &str, state: Option<&str>) -> Self {
        match (function, state.unwrap_or_default()) {
            (NODE_STATE_ACTION, "cordoned") => Self::both("cordon", "cordoned"),
            (NODE_STATE_ACTION, "ready") => Self::both("uncordon", "uncordoned"),
            (NODE_STATE_ACTION, "draining") => Self::both("drain", "drain started"),
            ("collect_weights", _) => Self::both("collect weights", "weights collected"),
            _ => Self {
                asked: function.replace('_', " "),
                done: format!("{} done", function.replace('_', " ")),
            },
        }
    }

    fn both(asked: &str, done: &str) -> Self {
        Self {
            asked: asked.into(),
            done: done.into(),
        }
    }
}

/// `records` (newest first, as the journal gives them) folded into lines:
/// an attempt's "sent" goes into its outcome, and a node's transition
/// into the attempt that asked for it, when the two are close enough in
/// time (see [`ATTEMPT_LEAD`]) and agree on node, state and actor. A
/// record whose partner is on another page stays a line of its own.
pub fn fold(records: Vec<JournalEvent>) -> Vec<EventLine> {
    let mut lines: Vec<EventLine> = Vec::with_capacity(records.len());
    // Walked oldest first, so that each record meets what came before it.
    for e in records.into_iter().rev() {
        // Only what follows a sending ends one: a refusal is never sent.
        if e.kind == EventKind::Attempt
            && matches!(e.after.as_deref(), Some("done" | "failed"))
            && let Some(sent) = lines.iter().rposition(|l| is_sent_of(&l.event, &e))
        {
            let caused = lines[sent].caused.take();
            lines.remove(sent);
            lines.push(EventLine { event: e, caused });
            continue;
        }
        if e.kind == EventKind::NodeState
            && e.actor.is_none()
            && let Some(cause) = lines.iter().rposition(|l| caused_by(&e, l))
        {
            lines[cause].caused = Some(e.change_text());
            continue;
        }
        lines.push(EventLine {
            event: e,
            caused: None,
        });
    }
    lines.reverse();
    lines
}

/// Whether `line` is the record of `outcome`'s attempt as sent.
fn is_sent_of(line: &JournalEvent, outcome: &JournalEvent) -> bool {
    line.kind == EventKind::Attempt
        && line.after.as_deref() == Some(Outcome::Sent.as_str())
        && line.cluster == outcome.cluster
        && line.before == outcome.before
        && line.node == outcome.node
        && line.model == outcome.model
        && line.actor == outcome.actor
        && (0..=ATTEMPT_LEAD).contains(&(outcome.at - line.at))
}

/// Whether `transition` is what `line`'s attempt asked for: an attempt
/// that went (or may have gone) through, on the same node, for the state
/// the node then took, shortly before, and not already given one.
fn caused_by(transition: &JournalEvent, line: &EventLine) -> bool {
    let (Some(Event::NodeState { node, now, .. }), Some(Event::Attempt(a))) =
        (transition.event(), line.event.event())
    else {
        return false;
    };
    line.caused.is_none()
        && matches!(a.outcome, Outcome::Done | Outcome::Sent)
        && line.event.cluster == transition.cluster
        && a.node == Some(node)
        && a.state == Some(now)
        && (0..=ATTEMPT_LEAD).contains(&(transition.at - line.event.at))
}

#[cfg(test)]
mod tests {
    use super::*;
    use llmgw_journal::event::Attempt;

    fn attempt(at: i64, outcome: Outcome) -> JournalEvent {
        Event::Attempt(Attempt {
            action: NODE_STATE_ACTION,
            node: Some("gpu-07"),
            model: None,
            state: Some("cordoned"),
            outcome,
            actor: "jane",
            note: Some("RMA 5120".into()),
        })
        .record(at, "eu")
    }

    fn transition(at: i64, after: &str) -> JournalEvent {
        JournalEvent::new(at, "eu", EventKind::NodeState)
            .node("gpu-07")
            .change("ready", after)
    }

    #[test]
    fn a_cordon_through_the_console_is_one_line_with_who_why_and_what_it_did() {
        let newest_first = vec![
            transition(40, "cordoned"),
            attempt(11, Outcome::Done),
            attempt(10, Outcome::Sent),
        ];
        let lines = fold(newest_first);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert_eq!(lines[0].sentence(), "cordoned by jane: RMA 5120 — done");
        assert_eq!(lines[0].caused.as_deref(), Some("ready → cordoned"));
        assert_eq!(lines[0].event.at, 11, "when it was done");
    }

    #[test]
    fn what_does_not_match_stays_a_line_of_its_own() {
        // Another node's transition, another state, too late, a refusal.
        let other_node = JournalEvent::new(30, "eu", EventKind::NodeState)
            .node("gpu-08")
            .change("ready", "cordoned");
        let mut refused = attempt(12, Outcome::Refused);
        refused.detail = Some("this console is read-only".into());
        let lines = fold(vec![
            transition(10 + ATTEMPT_LEAD + 60, "cordoned"),
            other_node,
            transition(20, "draining"),
            refused,
            attempt(10, Outcome::Sent),
        ]);
        let sentences: Vec<String> = lines.iter().map(EventLine::sentence).collect();
        assert_eq!(
            sentences,
            [
                "node state: ready → cordoned",
                "node state: ready → cordoned",
                "node state: ready → draining",
                "cordon by jane — refused because this console is read-only",
                "cordon by jane: RMA 5120 — sent, no answer recorded",
            ]
        );
    }

    #[test]
    fn a_transition_goes_to_one_attempt_only() {
        let lines = fold(vec![
            transition(30, "cordoned"),
            transition(25, "cordoned"),
            attempt(20, Outcome::Done),
        ]);
        assert_eq!(lines.len(), 2);
        assert!(lines[1].caused.is_some());
        assert_eq!(lines[0].sentence(), "node state: ready → cordoned");
    }

    #[test]
    fn actions_read_as_operators_say_them() {
        let words = |f, state| ActionWords::of(f, state);
        assert_eq!(words(NODE_STATE_ACTION, Some("ready")).asked, "uncordon");
        assert_eq!(words(NODE_STATE_ACTION, Some("draining")).asked, "drain");
        assert_eq!(words("collect_weights", None).done, "weights collected");
        assert_eq!(words("something_new", None).asked, "something new");
    }
}
