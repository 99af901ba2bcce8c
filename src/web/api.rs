//! The page's JSON API. Reading (`GET`) never changes anything; every change is a `POST`
//! with a JSON body of at most [`MAX_JSON_BYTES`]. What comes from another site, or under
//! a host name that is not the player's, never gets here: the player's gate refuses it
//! (a browser cannot send JSON to another origin without a CORS preflight, which is never
//! granted, either). Every input is checked; a refusal is a 4xx status with
//! `{"error": "..."}`.

use std::future::{Ready, ready};
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use super::Site;
use super::diagram::Diagram;
use super::page_games::{NewGame, PlayError, offers};
use super::store::Record;

/// Largest JSON body the page's API reads.
pub const MAX_JSON_BYTES: usize = 4096;

/// A refusal: a status and a message.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        json_error(self.status, &self.message)
    }
}

/// An error answer of the API: `status` with `{"error": message}`.
pub fn json_error(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({ "error": message }))).into_response()
}

impl From<PlayError> for ApiError {
    fn from(e: PlayError) -> ApiError {
        let status = match e {
            PlayError::BadGame(_) | PlayError::BadRequest(_) | PlayError::IllegalMove(_) => {
                StatusCode::UNPROCESSABLE_ENTITY
            }
            PlayError::TooMany => StatusCode::TOO_MANY_REQUESTS,
            PlayError::NoSuchGame(_) => StatusCode::NOT_FOUND,
            PlayError::NotYourTurn(_) => StatusCode::CONFLICT,
        };
        ApiError::new(status, e.to_string())
    }
}

type ApiResult = Result<Response, ApiError>;

/// A record's serial number from the path.
fn record_id(text: &str) -> Result<u64, ApiError> {
    text.parse::<u64>().map_err(|_| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("'{text}' is not a match number (a whole number, as /api/matches lists)"),
        )
    })
}

/// A record in the list: everything but its moves and boards.
fn summary(r: &Record) -> Value {
    json!({
        "id": r.id,
        "source": r.source,
        "match_id": r.match_id,
        "game": r.game,
        "size": r.size,
        "roles": r.roles,
        "us": r.us,
        "model": r.model,
        "start_clock_ms": r.start_clock_ms,
        "play_clock_ms": r.play_clock_ms,
        "started": r.started,
        "plies": r.plies,
        "to_move": r.to_move,
        "goals": r.goals,
        "broken": r.broken,
        "status": r.status,
        "version": r.version,
    })
}

pub async fn list(State(site): State<Arc<Site>>) -> Json<Value> {
    let all: Vec<Value> = site.store.list().iter().map(summary).collect();
    Json(json!({ "matches": all }))
}

pub async fn detail(State(site): State<Arc<Site>>, Path(id): Path<String>) -> ApiResult {
    let id = record_id(&id)?;
    let record = site
        .store
        .get(id)
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, format!("no match {id}")))?;
    let moves: Vec<Value> = record
        .moves
        .iter()
        .map(|m| {
            let mut v = serde_json::to_value(m).unwrap_or(Value::Null);
            v["diagram"] = json!(Diagram::parse_with(&m.board, &record.grid_axes));
            v
        })
        .collect();
    let mut v = summary(&record);
    v["board"] = json!(record.board);
    v["diagram"] = json!(Diagram::parse_with(&record.board, &record.grid_axes));
    v["moves"] = json!(moves);
    v["legal"] = json!(site.legal(id));
    Ok(Json(v).into_response())
}

pub async fn game_offers(State(site): State<Arc<Site>>) -> Json<Value> {
    Json(json!({ "games": offers(site.page_games.include_test_games) }))
}

/// Refuses a change that is not JSON, or is larger than the API takes.
fn check_post(headers: &HeaderMap, body: &Bytes) -> Result<(), ApiError> {
    let json_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|t| t.split(';').next())
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"));
    if !json_type {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "the body must be JSON, sent with Content-Type: application/json",
        ));
    }
    if body.len() > MAX_JSON_BYTES {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "request body too large: the limit is {MAX_JSON_BYTES} bytes (4 KiB, the page's API)"
            ),
        ));
    }
    Ok(())
}

fn parse<'a, T: Deserialize<'a>>(body: &'a [u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body)
        .map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, format!("bad JSON body: {e}")))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewGameBody {
    game: String,
    size: Option<String>,
    variant: Option<String>,
    side: String,
    think_ms: u64,
}

pub async fn create(State(site): State<Arc<Site>>, headers: HeaderMap, body: Bytes) -> ApiResult {
    check_post(&headers, &body)?;
    let b: NewGameBody = parse(&body)?;
    let id = site.page_games.create(NewGame {
        game: b.game,
        size: b.size.filter(|s| !s.trim().is_empty()),
        variant: b.variant.filter(|s| !s.trim().is_empty()),
        side: b.side,
        think: Duration::from_millis(b.think_ms),
    })?;
    Ok((
        StatusCode::CREATED,
        [(header::LOCATION, format!("/api/matches/{id}"))],
        Json(json!({ "id": id })),
    )
        .into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveBody {
    #[serde(rename = "move")]
    text: String,
}

pub async fn play(
    State(site): State<Arc<Site>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    check_post(&headers, &body)?;
    let id = record_id(&id)?;
    let b: MoveBody = parse(&body)?;
    site.play(id, b.text.trim())?;
    Ok(Json(json!({ "ok": true })).into_response())
}

pub async fn resign(
    State(site): State<Arc<Site>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    check_post(&headers, &body)?;
    let id = record_id(&id)?;
    site.page_games.resign(id)?;
    Ok(Json(json!({ "ok": true })).into_response())
}

/// Any other path under `/api/`.
pub async fn not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "no such API path: see /api/matches, /api/matches/N, /api/games, /api/events",
    )
}

/// The answer to a method that a route does not take, for the route's fallback (the
/// framework's own 405 says nothing): what was sent where, and what to send instead,
/// `methods`, which `Allow` lists too (with HEAD wherever GET is taken). JSON under
/// `/api/`, one line of text elsewhere.
pub fn wrong_method(
    methods: &'static [&'static str],
) -> impl Fn(Method, Uri) -> Ready<Response> + Clone + Send + Sync + 'static {
    move |method, uri| {
        let path = uri.path();
        let message = format!(
            "{method} is not allowed on {path}; use {}",
            methods.join(" or ")
        );
        let mut allowed = methods.to_vec();
        if methods.contains(&"GET") {
            allowed.push("HEAD");
        }
        let mut response = if path.starts_with("/api/") {
            json_error(StatusCode::METHOD_NOT_ALLOWED, &message)
        } else {
            (
                StatusCode::METHOD_NOT_ALLOWED,
                [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                format!("{message}\n"),
            )
                .into_response()
        };
        if let Ok(allow) = HeaderValue::from_str(&allowed.join(", ")) {
            response.headers_mut().insert(header::ALLOW, allow);
        }
        ready(response)
    }
}
