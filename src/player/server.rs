//! The HTTP side of the player: `POST /` in, one S-expression out, connection closed.
//!
//! Facts from the real controllers (`shared/PROTOCOL.md`) that shape this module:
//! - Dresden sends `POST / HTTP/1.0` with bare-LF header lines and no Host header, ignores
//!   Content-Length in the reply and reads **until EOF**: every reply must be followed at
//!   once by the end of the connection. Connections are therefore served by hyper's HTTP/1
//!   connection with keep-alive off, and closed by this module: the write side is shut
//!   down right after the reply (the controller sees EOF), then whatever the client still
//!   sends (both controllers write a newline after the body) is read and dropped for a
//!   moment before the socket is closed, so that the kernel does not answer that unread
//!   input with a reset that could destroy the reply in flight.
//! - Neither controller looks at the status code or Content-Type. Replies are still
//!   `200 text/acl`, and errors a 4xx status with a one-line plain-text message.
//!
//! [`app`] is the router alone (for `tower::ServiceExt::oneshot` in tests); [`serve`] runs
//! it on a listener.
//!
//! Before any route, [`gate`](super::gate) refuses what another site's page sends, and
//! the page under a host name that is not this player's (DNS rebinding).
//!
//! Shutdown (Ctrl-C or SIGTERM in `ggp-player serve`): the listener closes, a connection
//! still waiting for or reading its request is closed within [`STOP_GRACE`], and every
//! request already read gets its reply, which its deadline bounds (a PLAY answers within
//! its play clock); then [`serve`] returns.

use std::future::Future;
use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tower::ServiceExt;
use tower_http::limit::RequestBodyLimitLayer;
use tracing::{debug, info, warn};

use super::gate::{Gate, Head, Reached};
use super::handler::{DEFAULT_MAX_MATCHES, Player, PlayerConfig, PlayerError};
use super::protocol::Request;
use crate::agent::AgentConfig;
use crate::web::api::{MAX_JSON_BYTES, json_error};
use crate::web::{self, Site};

/// The course kiosk's default port for a remote player.
pub const DEFAULT_PORT: u16 = 4001;
/// Default of [`ServeConfig::margin`]: the search stops this long before the play clock
/// runs out. Measured at a 1 s play clock with two matches at once on a 2-core machine,
/// replies came at most 12 ms after the search deadline (28 ms with two CPU hogs
/// running); 100 ms covers that with room for a LAN (see `scripts/README.md`).
pub const DEFAULT_MARGIN: Duration = Duration::from_millis(100);
/// Largest request body accepted. The course rules are about 3 KiB.
pub const MAX_BODY_BYTES: usize = 1 << 20;
/// The player's default name in INFO replies.
pub const DEFAULT_NAME: &str = "ggp-player";
/// Default of the transposition tables' total, in MiB: a few-GiB machine keeps room for
/// everything else, and each of the [`DEFAULT_MAX_MATCHES`] matches gets 64 MiB, the
/// table of the `bench` figures.
pub const DEFAULT_TOTAL_HASH_MB: usize = 512;
/// How often matches that went quiet are looked for.
const IDLE_SWEEP: Duration = Duration::from_secs(1);

/// Longest wait for a request's header block, and then for its body.
const READ_TIMEOUT: Duration = Duration::from_secs(30);
/// At shutdown: how long a connection still waiting for or reading its request is kept.
pub const STOP_GRACE: Duration = Duration::from_secs(1);
/// After a reply: how long, and how much, the client's leftover input is drained.
const LINGER_TIME: Duration = Duration::from_secs(2);
const LINGER_BYTES: usize = 4 * MAX_BODY_BYTES;

#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// Address to listen on; loopback by default, `0.0.0.0` for a controller on another host.
    pub bind: IpAddr,
    pub port: u16,
    /// The agent; its `hash_mb` is the total of all matches' tables, each match getting
    /// an equal share (`hash_mb / max_matches`).
    pub agent: AgentConfig,
    /// Kept back from the play clock: the search stops at receipt + play clock − margin.
    pub margin: Duration,
    /// Threads of each search (0: one per core).
    pub threads: usize,
    /// Search on the opponent's time and during the start clock.
    pub ponder: bool,
    /// Name in INFO replies: one token.
    pub name: String,
    /// Matches played at once; a START beyond is refused.
    pub max_matches: usize,
    /// Host names, besides this machine's own, under which the page may be opened.
    pub allow_hosts: Vec<String>,
    /// Offer the test games (`walk`) on the page too.
    pub include_test_games: bool,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: DEFAULT_PORT,
            agent: AgentConfig {
                hash_mb: DEFAULT_TOTAL_HASH_MB,
                ..AgentConfig::default()
            },
            margin: DEFAULT_MARGIN,
            threads: 0,
            ponder: true,
            name: DEFAULT_NAME.to_owned(),
            max_matches: DEFAULT_MAX_MATCHES,
            allow_hosts: Vec::new(),
            include_test_games: false,
        }
    }
}

impl ServeConfig {
    pub fn addr(&self) -> SocketAddr {
        SocketAddr::new(self.bind, self.port)
    }

    /// Threads of each search: `threads`, or one per core.
    pub fn search_threads(&self) -> usize {
        if self.threads > 0 {
            self.threads
        } else {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        }
    }

    /// Each match's table, in MiB: an equal share of the total, at least 1 since
    /// [`ServeConfig::check_hash`] refuses a total smaller than that.
    pub fn match_hash_mb(&self) -> usize {
        (self.agent.hash_mb / self.max_matches.max(1)).max(1)
    }

    /// Refuses a total that cannot give each match its 1 MiB: rounding each share up
    /// would let the tables together pass `--hash-mb`, which they never may.
    pub fn check_hash(&self) -> Result<(), ServeError> {
        let (hash_mb, max_matches) = (self.agent.hash_mb, self.max_matches.max(1));
        if hash_mb < max_matches {
            return Err(ServeError::HashBelowMatches {
                hash_mb,
                max_matches,
            });
        }
        Ok(())
    }

    fn player_config(&self) -> PlayerConfig {
        let threads = self.search_threads();
        PlayerConfig {
            name: self.name.clone(),
            agent: AgentConfig {
                threads,
                hash_mb: self.match_hash_mb(),
                ..self.agent
            },
            margin: self.margin,
            threads,
            ponder: self.ponder,
            max_matches: self.max_matches.max(1),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    // `error` is part of the message, not a `source`: the message is one line either way.
    #[error("cannot listen on {addr}: {error}{hint}")]
    Bind {
        addr: SocketAddr,
        error: io::Error,
        hint: &'static str,
    },
    #[error("bad player name {0:?}: it must be one token, without spaces, parentheses or ';'")]
    BadName(String),
    #[error(
        "--hash-mb {hash_mb} is less than --max-matches {max_matches}: each match needs a \
         table of at least 1 MiB, so give --hash-mb {max_matches} or more, or --max-matches \
         {hash_mb} or fewer"
    )]
    HashBelowMatches { hash_mb: usize, max_matches: usize },
    #[error("cannot start the search threads: {0}")]
    Threads(io::Error),
}

/// Whether `name` can stand in `((name NAME) (status available))`.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| !c.is_whitespace() && !c.is_control() && !matches!(c, '(' | ')' | ';'))
}

/// Listens on the configured address, with a clear error if it is taken.
pub async fn bind(config: &ServeConfig) -> Result<TcpListener, ServeError> {
    let addr = config.addr();
    TcpListener::bind(addr).await.map_err(|error| {
        let hint = match error.kind() {
            io::ErrorKind::AddrInUse => {
                " (is another player running? choose another port with --port)"
            }
            io::ErrorKind::AddrNotAvailable => {
                " (not an address of this machine: try 127.0.0.1 or 0.0.0.0)"
            }
            io::ErrorKind::PermissionDenied => " (ports below 1024 need privileges)",
            _ => "",
        };
        ServeError::Bind { addr, error, hint }
    })
}

/// Serves GGP on `listener` until `shutdown` completes (`config.bind` and `config.port`
/// are not used: the listener is already bound).
pub async fn serve(
    config: ServeConfig,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), ServeError> {
    if !is_valid_name(&config.name) {
        return Err(ServeError::BadName(config.name));
    }
    config.check_hash()?;
    let site = Site::with_test_games(config.include_test_games).map_err(ServeError::Threads)?;
    let player = Player::new(config.player_config()).with_observer(site.store.clone());
    let addr = listener
        .local_addr()
        .map_or_else(|_| "?".to_owned(), |a| a.to_string());
    info!(
        agent = %config.agent,
        margin_ms = config.margin.as_millis() as u64,
        search_threads = player.config().threads,
        max_matches = player.config().max_matches,
        hash_mb_total = config.agent.hash_mb,
        hash_mb_per_match = player.config().agent.hash_mb,
        name = config.name,
        "GGP player listening on http://{addr}/ (open it in a browser to watch and play)"
    );
    let player = Arc::new(player);
    let sweeper = tokio::spawn(free_idle_matches(Arc::clone(&player)));
    let app = app_with_page(player, Arc::clone(&site), Gate::new(&config.allow_hosts));
    let (stopping, stop) = watch::channel(false);
    let mut connections = JoinSet::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        tokio::select! {
            biased;
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    debug!(%peer, "connection");
                    connections.spawn(connection(stream, app.clone(), stop.clone()));
                }
                Err(e) => {
                    // E.g. out of file descriptors: wait a little rather than spin.
                    warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    sweeper.abort();
    info!(
        open = connections.len(),
        "shutting down: finishing the replies in progress"
    );
    // The page's event streams never end on their own.
    site.store.close();
    let _ = stopping.send(true);
    while connections.join_next().await.is_some() {}
    info!("stopped");
    Ok(())
}

/// Frees the matches that went quiet, every [`IDLE_SWEEP`].
async fn free_idle_matches(player: Arc<Player>) {
    let mut tick = tokio::time::interval(IDLE_SWEEP);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        player.free_idle(Instant::now());
    }
}

/// One connection: one request, one reply, then the end of the connection. Once `stop`
/// turns true, a connection still waiting for or reading its request is closed within
/// [`STOP_GRACE`], and one whose request is being answered finishes.
async fn connection(stream: TcpStream, app: Router, mut stop: watch::Receiver<bool>) {
    let _ = stream.set_nodelay(true);
    let reached = stream.local_addr().ok().map(Reached);
    let progress = Arc::new(AtomicU8::new(WAITING));
    let service = {
        let progress = Arc::clone(&progress);
        service_fn(move |mut request: axum::http::Request<Incoming>| {
            if let Some(reached) = reached {
                request.extensions_mut().insert(reached);
            }
            let request = request.map(|body| Body::new(Tracked::new(body, Arc::clone(&progress))));
            app.clone().oneshot(request)
        })
    };
    let mut conn = http1::Builder::new()
        .keep_alive(false)
        // A client may shut down its write side after the request and still want the reply.
        .half_close(true)
        .timer(TokioTimer::new())
        .header_read_timeout(READ_TIMEOUT)
        .serve_connection(TokioIo::new(stream), service);
    let served = tokio::select! {
        served = std::future::poll_fn(|cx| conn.poll_without_shutdown(cx)) => served,
        () = async { drop(stop.wait_for(|&stopping| stopping).await) } => {
            Pin::new(&mut conn).graceful_shutdown();
            tokio::select! {
                served = std::future::poll_fn(|cx| conn.poll_without_shutdown(cx)) => served,
                () = tokio::time::sleep(STOP_GRACE) => {
                    if progress.load(Ordering::Acquire) != READ {
                        info!("shutting down: closed a connection whose request was not yet read");
                        return;
                    }
                    std::future::poll_fn(|cx| conn.poll_without_shutdown(cx)).await
                }
            }
        }
    };
    match served {
        Ok(()) => linger(conn.into_parts().io.into_inner()).await,
        // Not HTTP, or headers too slow or too large: hyper has answered 400/408/431 if it
        // could; the unread rest is drained so that the answer is not lost to a reset.
        Err(e) if e.is_parse() || e.is_parse_too_large() || e.is_timeout() => {
            warn!(error = %e, "bad HTTP request: refused");
            linger(conn.into_parts().io.into_inner()).await;
        }
        // The client went away.
        Err(e) => debug!(error = %e, "connection ended without a reply"),
    }
}

/// A connection's request: not yet begun, its body being read, or wholly read.
const WAITING: u8 = 0;
const READING: u8 = 1;
const READ: u8 = 2;

/// A request's body that records, for shutdown, when it has been wholly read (or let go).
struct Tracked {
    inner: Incoming,
    progress: Arc<AtomicU8>,
}

impl Tracked {
    fn new(inner: Incoming, progress: Arc<AtomicU8>) -> Tracked {
        let state = if http_body::Body::is_end_stream(&inner) {
            READ
        } else {
            READING
        };
        progress.store(state, Ordering::Release);
        Tracked { inner, progress }
    }
}

impl http_body::Body for Tracked {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if matches!(polled, Poll::Ready(None | Some(Err(_)))) || self.inner.is_end_stream() {
            self.progress.store(READ, Ordering::Release);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for Tracked {
    /// A body the route never read is not waited for either.
    fn drop(&mut self) {
        self.progress.store(READ, Ordering::Release);
    }
}

/// Ends the reply with EOF, then reads and drops the client's leftover input until it
/// closes (or for [`LINGER_TIME`]), so that closing does not reset the connection.
async fn linger(mut stream: TcpStream) {
    if stream.shutdown().await.is_err() {
        return;
    }
    let until = tokio::time::Instant::now() + LINGER_TIME;
    let mut buf = vec![0u8; 16 * 1024];
    let mut drained = 0;
    while drained <= LINGER_BYTES {
        match tokio::time::timeout_at(until, stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) | Err(_) => break,
            Ok(Ok(n)) => drained += n,
        }
    }
}

/// The router: every request goes to the GGP handler (any path; POST only), behind the
/// [`Gate`] and a body limit of [`MAX_BODY_BYTES`], and every response closes the
/// connection.
pub fn app(player: Arc<Player>) -> Router {
    front(
        Router::new().fallback(ggp).with_state(player),
        Gate::default(),
    )
}

/// [`app`] with the web page: `GET /` is the page, its files and API are beside it, and
/// `POST /` is GGP's (a POST to any other path too, as [`app`] takes it); any other
/// request for a path that is not the page's is 404, not 405: no method would do.
pub fn app_with_page(player: Arc<Player>, site: Arc<Site>, gate: Gate) -> Router {
    let ggp = Router::new()
        .route("/", get(web::page).post(ggp).fallback(not_get_or_post))
        .fallback(elsewhere)
        .with_state(player);
    front(web::router(site).merge(ggp), gate)
}

/// A method `/` does not take: it is the page's (GET) and GGP's (POST).
async fn not_get_or_post(method: Method) -> Response {
    warn!(%method, "neither GET nor POST on /: refused");
    method_not_allowed(
        &format!(
            "{method} is not allowed on /: GET / is the web page, and GGP messages are sent \
             as POST / with an S-expression body"
        ),
        "GET, HEAD, POST",
    )
}

/// A path that is neither `/` nor the page's: GGP's when POSTed, else there is nothing.
async fn elsewhere(player: State<Arc<Player>>, request: axum::extract::Request) -> Response {
    if request.method() == Method::POST {
        return ggp(player, request).await;
    }
    let path = request.uri().path();
    debug!(method = %request.method(), path, "no such page");
    error_reply(
        StatusCode::NOT_FOUND,
        &format!(
            "no such page: {path} (the web page is GET /, and GGP messages are sent as POST /)"
        ),
    )
}

/// The gate, the body limit, the wording of refusals, and `Connection: close`.
fn front(router: Router, gate: Gate) -> Router {
    router
        .layer(RequestBodyLimitLayer::new(MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn_with_state(Arc::new(gate), guard))
}

/// Refuses at the request's head what [`Gate`] refuses, and an API body declared larger
/// than the API takes; words every refusal for its route (JSON under `/api/`, one line of
/// text elsewhere, the limit that applies to an oversized body); closes the connection.
async fn guard(
    State(gate): State<Arc<Gate>>,
    request: axum::extract::Request,
    next: Next,
) -> Response {
    let api = request.uri().path().starts_with("/api/");
    let head = Head {
        method: request.method(),
        path: request.uri().path(),
        version: request.version(),
        headers: request.headers(),
        reached: request.extensions().get::<Reached>().map(|r| r.0),
    };
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.trim().parse::<u64>().ok());
    let mut response = match gate.check(&head) {
        Err(refusal) => {
            warn!(
                method = %request.method(),
                path = request.uri().path(),
                status = refusal.status.as_u16(),
                reason = refusal.message,
                "refused at the gate"
            );
            refuse(api, refusal.status, &refusal.message)
        }
        Ok(()) if api && declared.is_some_and(|n| n > MAX_JSON_BYTES as u64) => too_large(true),
        Ok(()) => {
            let response = next.run(request).await;
            if response.status() == StatusCode::PAYLOAD_TOO_LARGE {
                too_large(api)
            } else if api && is_plain_error(&response) {
                let status = response.status();
                let text = axum::body::to_bytes(response.into_body(), 4096)
                    .await
                    .unwrap_or_default();
                json_error(status, String::from_utf8_lossy(&text).trim())
            } else {
                response
            }
        }
    };
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// An error answer that is not the API's JSON (e.g. a request the framework rejected).
fn is_plain_error(response: &Response) -> bool {
    let json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("application/json"));
    (response.status().is_client_error() || response.status().is_server_error()) && !json
}

/// The answer to a body over the limit of its route.
fn too_large(api: bool) -> Response {
    let (limit, words) = if api {
        (MAX_JSON_BYTES, "4 KiB, the page's API")
    } else {
        (MAX_BODY_BYTES, "1 MiB")
    };
    warn!(limit_bytes = limit, "request body too large: refused");
    refuse(
        api,
        StatusCode::PAYLOAD_TOO_LARGE,
        &format!("request body too large: the limit is {limit} bytes ({words})"),
    )
}

/// A refusal worded for its route.
fn refuse(api: bool, status: StatusCode, message: &str) -> Response {
    if api {
        json_error(status, message)
    } else {
        error_reply(status, message)
    }
}

async fn ggp(State(player): State<Arc<Player>>, request: axum::extract::Request) -> Response {
    let received = Instant::now();
    if request.method() != Method::POST {
        warn!(method = %request.method(), "not a POST: refused");
        return method_not_allowed(
            "GGP messages are sent as POST / with an S-expression body",
            "POST",
        );
    }
    let body = match tokio::time::timeout(
        READ_TIMEOUT,
        axum::body::to_bytes(request.into_body(), MAX_BODY_BYTES),
    )
    .await
    {
        Ok(Ok(body)) => body,
        Ok(Err(e)) if is_length_limit(&e) => {
            // Logged and worded by `guard`.
            return StatusCode::PAYLOAD_TOO_LARGE.into_response();
        }
        Ok(Err(e)) => {
            warn!(error = %e, "cannot read the request body");
            return error_reply(
                StatusCode::BAD_REQUEST,
                &format!("cannot read the body: {e}"),
            );
        }
        Err(_) => {
            warn!("timed out reading the request body");
            return error_reply(StatusCode::REQUEST_TIMEOUT, "timed out reading the body");
        }
    };
    let text = String::from_utf8_lossy(&body);
    let request = match Request::parse(&text) {
        Ok(request) => request,
        Err(e) => {
            warn!(bytes = body.len(), error = %e, "bad request: refused");
            return error_reply(StatusCode::BAD_REQUEST, &e.to_string());
        }
    };
    let kind = request.kind();
    let match_id = request.match_id().unwrap_or("-").to_owned();
    info!(kind, match_id, bytes = body.len(), "request");
    let result = player.handle(request, received).await;
    let latency_ms = format!("{:.2}", received.elapsed().as_secs_f64() * 1e3);
    match result {
        Ok(reply) => {
            info!(kind, match_id, reply, latency_ms, "reply");
            (
                [(header::CONTENT_TYPE, HeaderValue::from_static("text/acl"))],
                reply,
            )
                .into_response()
        }
        Err(e) => {
            warn!(kind, match_id, error = %e, latency_ms, "error reply");
            let status = match e {
                PlayerError::UnknownMatch(_) => StatusCode::NOT_FOUND,
                PlayerError::BadStart { .. } => StatusCode::UNPROCESSABLE_ENTITY,
                PlayerError::Busy { .. } => StatusCode::SERVICE_UNAVAILABLE,
                PlayerError::Crashed { .. } => StatusCode::INTERNAL_SERVER_ERROR,
            };
            error_reply(status, &e.to_string())
        }
    }
}

/// Whether reading a body failed on the size limit.
fn is_length_limit(e: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if err.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        source = err.source();
    }
    false
}

/// A 4xx reply with a one-line plain-text message.
/// A 405 saying `message`, its `Allow` header the methods that would do.
fn method_not_allowed(message: &str, allow: &'static str) -> Response {
    let mut response = error_reply(StatusCode::METHOD_NOT_ALLOWED, message);
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    response
}

fn error_reply(status: StatusCode, message: &str) -> Response {
    let line: String = message
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let body = Body::from(format!("{line}\n"));
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        )],
        body,
    )
        .into_response()
}

/// Completes on Ctrl-C (or SIGTERM on Unix).
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => info!("Ctrl-C: stopping"),
        () = terminate => info!("SIGTERM: stopping"),
    }
}
