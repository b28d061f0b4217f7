//! Nodes: the list, and (later) changes of state.

use leptos::prelude::*;

use crate::admin_api::types::NodeView;
use crate::error::ConsoleError;

#[server(endpoint = "/list_nodes")]
pub async fn list_nodes() -> Result<Vec<NodeView>, ConsoleError> {
    ssr::list_nodes().await
}

#[cfg(feature = "ssr")]
mod ssr {
    use super::*;
    use crate::context::ConsoleContext;

    pub async fn list_nodes() -> Result<Vec<NodeView>, ConsoleError> {
        let cx = ConsoleContext::current()?;
        Ok(cx.admin_api.list_nodes(&cx.actor()).await?)
    }
}
