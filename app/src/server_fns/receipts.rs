//! What an action did, for the page it returns to. An action sends the
//! browser to `back?receipt=…`, the receipt itself signed into the address:
//! every action is a form, and its answer a redirect, with JavaScript or
//! without. Nothing is stored per
//! action, and any console sharing the key shows it; the signature means a
//! link cannot make the console claim an outcome it never had.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::audit_record::Outcome;
use crate::error::ConsoleError;

/// The outcome of one action, as the operator reads it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receipt {
    /// "Drain gpu-h100-01", "Collect orphaned weights on every node".
    pub action: String,
    /// Why the action failed or was refused as a whole, in the operator's words.
    pub error: Option<String>,
    /// One line per result ("gpu-a: asked to remove 3 files, 141.9 GB").
    pub lines: Vec<String>,
    /// Lines that report a part that failed while the rest went through.
    pub failed_lines: Vec<String>,
    pub note: Option<String>,
    /// The way back, offered for [`UNDO_SECONDS`] after a cordon or an
    /// uncordon: the same action the other way, confirmed by the click.
    #[serde(default)]
    pub undo: Option<Undo>,
}

/// How long a receipt offers its undo: long enough to see a slip, short
/// enough that nobody undoes what others have since built on.
pub const UNDO_SECONDS: u64 = 30;

/// A change of a node's state that would put it back as it was.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Undo {
    pub node: String,
    /// The state it was in, and goes back to.
    pub state: crate::admin_api::types::TargetState,
    /// "Uncordon gpu-h100-01".
    pub label: String,
}

impl Undo {
    /// The undo of putting `node` from `before` into `after`: only a
    /// cordon and an uncordon have one (a drain has moved replicas, which
    /// an uncordon does not bring back).
    pub fn of(
        node: &str,
        before: &crate::admin_api::types::NodeState,
        after: crate::admin_api::types::TargetState,
    ) -> Option<Self> {
        use crate::admin_api::types::{NodeState, TargetState};
        let (state, verb) = match (before, after) {
            (NodeState::Ready, TargetState::Cordoned) => (TargetState::Ready, "Uncordon"),
            (NodeState::Cordoned, TargetState::Ready) => (TargetState::Cordoned, "Cordon"),
            _ => return None,
        };
        Some(Self {
            node: node.to_string(),
            state,
            label: format!("{verb} {node} again"),
        })
    }
}

/// Whether a receipt issued at `issued` still offers its undo at `now`.
pub fn undo_open(issued: u64, now: u64) -> bool {
    now.saturating_sub(issued) <= UNDO_SECONDS
}

impl Receipt {
    /// How the action ended, for the audit: done when any part went
    /// through (the parts that failed are the reason), failed when none did.
    pub fn outcome(&self) -> (Outcome, Option<String>) {
        let refused = (!self.failed_lines.is_empty()).then(|| self.failed_lines.join("; "));
        match &self.error {
            Some(e) => (Outcome::Failed, Some(e.clone())),
            None if self.lines.is_empty() && refused.is_some() => (Outcome::Failed, refused),
            None => (Outcome::Done, refused),
        }
    }

    /// An action that was refused, or failed, before it did anything.
    pub fn refused(action: impl Into<String>, error: &ConsoleError) -> Self {
        Self {
            action: action.into(),
            error: Some(error.in_console_words()),
            ..Self::default()
        }
    }
}

/// The receipt signed in `id`, or `None` when it is not one this console
/// (or one sharing its key) issued in the last few minutes.
#[server(endpoint = "/read_receipt")]
pub async fn read_receipt(id: String) -> Result<Option<Receipt>, ConsoleError> {
    ssr::read(&id)
}

#[cfg(feature = "ssr")]
pub use ssr::{finish, seal};

#[cfg(feature = "ssr")]
mod ssr {
    use super::*;
    use crate::server::ConsoleContext;
    use crate::server::input::ReturnPath;
    use crate::server::signing::{Signer, unix_now};
    use crate::urls;

    const PURPOSE: &str = "receipt";

    /// Long enough to read after a slow redirect, short enough that nobody
    /// mistakes an old outcome for a new one.
    const KEEP_SECONDS: u64 = 600;

    /// A receipt travels in a URL, which proxies cut at a few kilobytes; a
    /// collection on thousands of nodes reports the first ones and a count.
    const MAX_LINES: usize = 12;
    const MAX_LINE_CHARS: usize = 240;

    #[derive(Serialize, Deserialize)]
    struct Sealed {
        receipt: Receipt,
        issued: u64,
    }

    fn clip(line: String) -> String {
        if line.chars().count() <= MAX_LINE_CHARS {
            return line;
        }
        let mut cut: String = line.chars().take(MAX_LINE_CHARS).collect();
        cut.push('…');
        cut
    }

    fn clip_lines(lines: Vec<String>) -> Vec<String> {
        let total = lines.len();
        let mut kept: Vec<String> = lines.into_iter().take(MAX_LINES).map(clip).collect();
        if total > MAX_LINES {
            kept.push(format!("… and {} more", total - MAX_LINES));
        }
        kept
    }

    /// `receipt`, trimmed to fit an address, signed.
    pub fn seal(signer: &Signer, receipt: Receipt) -> Result<String, ConsoleError> {
        let receipt = Receipt {
            action: clip(receipt.action),
            error: receipt.error.map(clip),
            lines: clip_lines(receipt.lines),
            failed_lines: clip_lines(receipt.failed_lines),
            note: receipt.note.map(clip),
            undo: receipt.undo,
        };
        signer.sign(
            PURPOSE,
            &Sealed {
                receipt,
                issued: unix_now(),
            },
        )
    }

    pub fn read(id: &str) -> Result<Option<Receipt>, ConsoleError> {
        let cx = ConsoleContext::current()?;
        let now = unix_now();
        Ok(cx
            .signer
            .verify::<Sealed>(PURPOSE, id)
            .filter(|s| now.saturating_sub(s.issued) <= KEEP_SECONDS)
            .map(|s| Receipt {
                undo: s.receipt.undo.filter(|_| undo_open(s.issued, now)),
                ..s.receipt
            }))
    }

    /// How every action finishes: sends the browser back to `back`, checked
    /// before the action ran, with the receipt. The outcome is also what
    /// the audit records.
    pub fn finish(receipt: Receipt, back: &ReturnPath) -> Result<(), ConsoleError> {
        let cx = ConsoleContext::current()?;
        let (outcome, reason) = receipt.outcome();
        cx.audit_outcome(outcome, reason);
        let sealed = seal(&cx.signer, receipt)?;
        leptos_axum::redirect(&urls::with_params(back.as_str(), &[("receipt", &sealed)]));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admin_api::types::{NodeState, TargetState};

    #[test]
    fn a_cordon_and_an_uncordon_can_be_undone_for_a_while_and_a_drain_cannot() {
        let undo = Undo::of("gpu-7", &NodeState::Ready, TargetState::Cordoned).expect("undo");
        assert_eq!(undo.state, TargetState::Ready);
        assert_eq!(undo.label, "Uncordon gpu-7 again");
        let undo = Undo::of("gpu-7", &NodeState::Cordoned, TargetState::Ready).expect("undo");
        assert_eq!(undo.state, TargetState::Cordoned);
        assert_eq!(
            Undo::of("gpu-7", &NodeState::Ready, TargetState::Draining),
            None
        );
        assert_eq!(
            Undo::of("gpu-7", &NodeState::Draining, TargetState::Ready),
            None
        );
        assert_eq!(
            Undo::of("gpu-7", &NodeState::Cordoned, TargetState::Cordoned),
            None
        );
        assert!(undo_open(100, 100 + UNDO_SECONDS));
        assert!(!undo_open(100, 101 + UNDO_SECONDS));
    }
}
