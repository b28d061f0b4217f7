//! `GET /theme/<choice>?back=<page>`: keeps the viewer's theme in a cookie
//! and sends them back to the page they were on, so the switch is a plain
//! link that works without JavaScript. It changes nothing but the viewer's
//! own cookie, which is why it is not a server function and not audited.

use app::theme::Theme;
use app::urls::local_return_path;
use axum::extract::{Path, Query};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

#[derive(Deserialize)]
pub struct Back {
    back: Option<String>,
}

pub async fn switch_theme(Path(choice): Path<String>, Query(back): Query<Back>) -> Response {
    let Some(theme) = Theme::parse(&choice) else {
        return (
            StatusCode::NOT_FOUND,
            "no such theme: the themes are auto, light and dark\n",
        )
            .into_response();
    };
    let back = local_return_path(back.back.as_deref(), "/");
    (
        StatusCode::SEE_OTHER,
        [
            (header::SET_COOKIE, theme.set_cookie()),
            (header::LOCATION, back),
            (header::CACHE_CONTROL, "no-store".to_string()),
        ],
    )
        .into_response()
}
