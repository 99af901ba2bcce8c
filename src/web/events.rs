//! Live updates: a server-sent event for every change to a match (`change`, with the
//! match's number, version, plies and status), so that the page fetches only what
//! changed. Open streams are bounded, and end when the server shuts down; the page
//! reconnects on its own (EventSource).

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::wrappers::errors::BroadcastStreamRecvError;
use tokio_stream::{Stream, StreamExt};

use super::Site;
use super::api::ApiError;
use super::store::CLOSING;

/// Event streams open at once.
pub const MAX_STREAMS: usize = 32;

/// Counts an open stream while it lives.
struct Open(Arc<AtomicUsize>);

impl Drop for Open {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

pub async fn stream(State(site): State<Arc<Site>>) -> Response {
    let open = &site.streams;
    if open.fetch_add(1, Ordering::Relaxed) >= MAX_STREAMS {
        open.fetch_sub(1, Ordering::Relaxed);
        return ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("{MAX_STREAMS} event streams are open already: close a page"),
        )
        .into_response();
    }
    let guard = Open(Arc::clone(open));
    let changes = BroadcastStream::new(site.store.subscribe())
        .take_while(|change| !matches!(change, Ok(c) if c.status == CLOSING))
        .map(move |change| {
            let _alive = &guard;
            Ok::<_, Infallible>(match change {
                Ok(c) => Event::default()
                    .event("change")
                    .json_data(c)
                    .unwrap_or_else(|_| Event::default().comment("unserialisable")),
                // Missed changes: the page reloads everything.
                Err(BroadcastStreamRecvError::Lagged(_)) => {
                    Event::default().event("lagged").data("{}")
                }
            })
        });
    let hello = tokio_stream::once(Ok(Event::default().event("hello").data("{}")));
    let events: std::pin::Pin<Box<dyn Stream<Item = Result<Event, Infallible>> + Send>> =
        Box::pin(hello.chain(changes));
    Sse::new(events)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}
