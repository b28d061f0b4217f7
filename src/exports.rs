//! A table's page asked for as data (`/c/eu/nodes?format=csv`): answered
//! here, after every step of the pipeline, instead of the page. What is
//! written is `app::server::exports`'s.

use app::error::ConsoleError;
use app::server::ConsoleContext;
use app::server::clusters::InCluster;
use app::server::exports::{Format, export};
use app::table::ExportedTable as Table;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::refusal::refusal;

pub async fn exports(State(console): State<ConsoleContext>, req: Request, next: Next) -> Response {
    let read = req.method() == Method::GET || req.method() == Method::HEAD;
    let table = read.then(|| Table::at(req.uri().path())).flatten();
    let asked = table.zip(Format::of_query(req.uri().query()));
    let Some((table, format)) = asked else {
        return next.run(req).await;
    };
    let format = match format {
        Ok(format) => format,
        Err(why) => return refusal(StatusCode::BAD_REQUEST, format!("{why}\n")),
    };
    let cx = console.for_request(req.extensions().get::<InCluster>());
    let query = req.uri().query().unwrap_or_default();
    match export(&cx, table, query, format).await {
        Ok(body) => {
            let file = format!(
                "attachment; filename=\"{}-{}.{}\"",
                cx.cluster.tag.id,
                table.name(),
                format.extension()
            );
            let mut response = body.into_response();
            let headers = response.headers_mut();
            headers.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static(format.content_type()),
            );
            if let Ok(value) = HeaderValue::from_str(&file) {
                headers.insert(header::CONTENT_DISPOSITION, value);
            }
            headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            response
        }
        // Never an empty file that would read as "no nodes".
        Err(e @ ConsoleError::AdminApi(_)) => refusal(StatusCode::BAD_GATEWAY, format!("{e}\n")),
        Err(e @ ConsoleError::BadRequest(_)) => refusal(StatusCode::BAD_REQUEST, format!("{e}\n")),
        Err(e) => refusal(StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")),
    }
}
