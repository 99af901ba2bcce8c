//! The web page served by `serve` on the GGP port: watch every match the player is in,
//! live, and play the engine.
//!
//! - [`observe`]: what a player reports about its matches to whoever watches them.
//! - [`store`]: the matches and page games the page shows; it is the player's observer.
//! - [`diagram`]: a position's text read as a grid; [`facts`]: a GDL state's facts;
//!   [`grid_axes`]: which of their coordinates the rules mean as the row.
//! - [`page_games`]: games against the engine started from the page, searched at the
//!   least priority.
//! - [`host`]: a game another program plays and shows here (`loa --display`).
//! - [`api`]: the JSON API; [`events`]: live updates (server-sent events).
//! - [`assets`]: the page's files, built in, and its security headers.
//!
//! `GET /` (the page itself) is routed by the player's server, since `POST /` is GGP's;
//! [`router`] has everything else.

pub mod api;
pub mod assets;
pub mod diagram;
pub mod events;
pub mod facts;
pub mod grid_axes;
pub mod host;
pub mod observe;
pub mod page_games;
pub mod store;

use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, OnceLock};

use axum::Router;
use axum::routing::{MethodRouter, any, get, post};

use host::Host;
use page_games::{LegalMove, PageGames, PlayError};
use store::Store;

/// What the page's routes share.
pub struct Site {
    pub store: Arc<Store>,
    pub page_games: Arc<PageGames>,
    /// Event streams open now.
    streams: Arc<AtomicUsize>,
    /// The game of the program that serves the page, if it has one.
    host: OnceLock<Arc<dyn Host>>,
}

impl Site {
    /// An empty site offering the games people play; starts the page games' search
    /// thread.
    pub fn new() -> std::io::Result<Arc<Site>> {
        Site::with_test_games(false)
    }

    /// [`Site::new`], offering the test games (`walk`) too when `include_test_games`.
    pub fn with_test_games(include_test_games: bool) -> std::io::Result<Arc<Site>> {
        let store = Arc::new(Store::default());
        let page_games = PageGames::new(Arc::clone(&store), include_test_games)?;
        Ok(Arc::new(Site {
            store,
            page_games,
            streams: Arc::default(),
            host: OnceLock::new(),
        }))
    }

    /// Shows `host`'s game, and hands it the page's moves in it (once).
    pub fn set_host(&self, host: Arc<dyn Host>) {
        let _ = self.host.set(host);
    }

    fn host_of(&self, id: u64) -> Option<&Arc<dyn Host>> {
        self.host.get().filter(|h| h.owns(id))
    }

    /// The person's legal moves in record `id` when it is their turn.
    pub fn legal(&self, id: u64) -> Option<Vec<LegalMove>> {
        match self.host_of(id) {
            Some(host) => host.legal(),
            None => self.page_games.legal(id),
        }
    }

    /// The person's move `text` in record `id`.
    pub fn play(self: &Arc<Self>, id: u64, text: &str) -> Result<(), PlayError> {
        match self.host_of(id) {
            Some(host) => host.play(text),
            None => self.page_games.play(id, text),
        }
    }
}

/// `GET /`: the page, with its security headers.
pub async fn page() -> axum::response::Response {
    assets::secure(assets::index().await).await
}

/// The page's files and API (everything but `GET /`).
pub fn router(site: Arc<Site>) -> Router {
    Router::new()
        .route("/app.js", read(get(assets::script)))
        .route("/style.css", read(get(assets::style)))
        .route("/favicon.svg", read(get(assets::icon)))
        .route("/api/matches", read(get(api::list)))
        .route("/api/matches/{id}", read(get(api::detail)))
        .route(
            "/api/games",
            get(api::game_offers)
                .post(api::create)
                .fallback(api::wrong_method(&["GET", "POST"])),
        )
        .route(
            "/api/games/{id}/moves",
            post(api::play).fallback(api::wrong_method(&["POST"])),
        )
        .route(
            "/api/games/{id}/resign",
            post(api::resign).fallback(api::wrong_method(&["POST"])),
        )
        .route("/api/events", read(get(events::stream)))
        .route("/api/{*rest}", any(api::not_found))
        .layer(axum::middleware::map_response(assets::secure))
        .with_state(site)
}

/// A route that is only read: any method but GET (and HEAD) gets a 405 that says so.
fn read(route: MethodRouter<Arc<Site>>) -> MethodRouter<Arc<Site>> {
    route.fallback(api::wrong_method(&["GET"]))
}
