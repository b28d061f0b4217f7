//! The wall screen's data: one answer per refresh period for every wall.

use leptos::prelude::*;

use crate::error::ConsoleError;
use crate::wall::WallView;

#[server(endpoint = "/read_wall")]
pub async fn read_wall() -> Result<WallView, ConsoleError> {
    ssr::read_wall().await
}

#[cfg(feature = "ssr")]
mod ssr {
    use super::*;
    use crate::server::ConsoleContext;

    pub async fn read_wall() -> Result<WallView, ConsoleError> {
        let cx = ConsoleContext::current()?;
        let view = cx.wall.current(&cx.snapshots).await?;
        Ok(view.as_ref().clone())
    }
}
