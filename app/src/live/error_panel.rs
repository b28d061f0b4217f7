//! How a failure is shown: what failed, the message in full, and what usually
//! fixes it.

use leptos::prelude::*;

use crate::admin_api::AdminApiError;
use crate::error::ConsoleError;

fn title(error: &ConsoleError) -> &'static str {
    match error {
        ConsoleError::AdminApi(AdminApiError::Unreachable { .. }) => {
            "The llmgw admin API cannot be reached"
        }
        ConsoleError::AdminApi(AdminApiError::Status { .. }) => {
            "The llmgw admin API refused the request"
        }
        ConsoleError::AdminApi(AdminApiError::NotInCatalog { .. }) => "No such model",
        ConsoleError::AdminApi(AdminApiError::Slow { .. }) => {
            "The llmgw admin API is slow to answer"
        }
        ConsoleError::AdminApi(AdminApiError::Malformed { .. }) => {
            "The llmgw admin API sent an answer the console cannot read"
        }
        ConsoleError::BadRequest(_) => "That request is not valid",
        ConsoleError::ReadOnly => "This console is read-only",
        ConsoleError::UserRequired => "Who is asking?",
        ConsoleError::ConfirmationMissing => "Not confirmed",
        ConsoleError::ConfirmationStale { .. } => "The confirmation is no longer valid",
        ConsoleError::ListChanged => "The list changed",
        ConsoleError::Transport(_) => "The console did not answer",
        ConsoleError::Internal(_) => "The console failed",
        ConsoleError::AuditUnavailable(_) => "Not sent: the audit cannot be written",
    }
}

#[component]
pub fn ErrorPanel(error: ConsoleError) -> impl IntoView {
    let hint = error.hint();
    view! {
        <section class=crate::live::markup::ERROR_PANEL_CLASS role="alert">
            <h2>{title(&error)}</h2>
            <p class="error-message">{error.to_string()}</p>
            {hint.map(|h| view! { <p class="hint">{h}</p> })}
        </section>
    }
}
