//! Games played on the page against the engine: any registered game, any size it has,
//! either side, a think time per engine move.
//!
//! They must never take the cores from a controller's match, whose replies have a
//! deadline. So their searches run one at a time on a thread of their own (one search
//! thread, a small table) whose scheduling priority is lowered to the least (nice 19 on
//! Linux): when a controller's search wants the cores, the kernel gives this thread a
//! tiny share of them (weight 15 against 1024 for a normal thread). At most
//! [`MAX_PAGE_GAMES`] are in progress at once; one left idle for [`IDLE`] makes room.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, mpsc};
use std::time::{Duration, Instant};

use serde::Serialize;
use tracing::{info, warn};

use super::diagram::Diagram;
use super::store::{NewRecord, Source, Store};
use crate::agent::{Agent, AgentConfig, AgentKind};
use crate::game::{self, Game, MoveBuffer, Outcome};
use crate::games;
use crate::search::Limits;
use crate::spec::{self, GameSpec, Tool};
use crate::web::observe::{SearchFigures, Snapshot};

/// Page games in progress at once.
pub const MAX_PAGE_GAMES: usize = 4;
/// The engine's think time per move on the page: bounds.
pub const MIN_THINK: Duration = Duration::from_millis(100);
pub const MAX_THINK: Duration = Duration::from_secs(10);
/// A game whose player has not moved for this long may be ended to make room.
pub const IDLE: Duration = Duration::from_secs(15 * 60);
/// The engine's table per page game, in MiB.
const PAGE_HASH_MB: usize = 16;

/// Why a request about a page game is refused.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    #[error("{0}")]
    BadGame(String),
    #[error("{0}")]
    BadRequest(String),
    #[error(
        "{MAX_PAGE_GAMES} games are already in progress on the page: finish or resign one first"
    )]
    TooMany,
    #[error("no game {0} is in progress on the page")]
    NoSuchGame(u64),
    #[error("not your turn: {0}")]
    NotYourTurn(&'static str),
    #[error("{0}")]
    IllegalMove(String),
}

/// A legal move as the page offers it: its name, and the cells it goes from and to
/// when it moves one piece (row from the top, column from the left). A move that several
/// pieces can make (an Ataxx clone) is listed once for each.
#[derive(Clone, Debug, Serialize)]
pub struct LegalMove {
    pub name: String,
    pub from: Option<[usize; 2]>,
    pub to: Option<[usize; 2]>,
}

/// A game on offer, for the page's form.
#[derive(Clone, Debug, Serialize)]
pub struct GameOffer {
    pub name: &'static str,
    pub about: &'static str,
    pub sizes: &'static str,
    pub default_size: &'static str,
    pub variants: &'static [&'static str],
    pub sides: [&'static str; 2],
}

/// What the page asks for.
#[derive(Clone, Debug)]
pub struct NewGame {
    pub game: String,
    pub size: Option<String>,
    pub variant: Option<String>,
    /// The side the person plays (one of the game's sides).
    pub side: String,
    pub think: Duration,
}

/// The cells a move passed through, when more than its start and end.
type Path = Option<Vec<[usize; 2]>>;

type EngineSearch = Box<dyn FnOnce(&Limits) -> Option<(String, Option<SearchFigures>)> + Send>;

/// A page game's position and the engine's agent, the game's type erased.
trait Position: Send {
    fn board(&self) -> String;
    fn plies(&self) -> u32;
    fn legal(&self) -> Vec<LegalMove>;
    /// Plays the legal move written `text`; its name and the cells it passed through
    /// ([`Game::move_path`]).
    fn play(&mut self, text: &str) -> Result<(String, Path), String>;
    /// Goals by seat (seat 0 moves first) once the game is over.
    fn goals(&self) -> Option<Vec<Option<u32>>>;
    /// The engine's search for the side to move.
    fn search(&self) -> EngineSearch;
}

struct Native<G: Game> {
    position: G,
    plies: u32,
    earlier: Vec<u64>,
    agent: Arc<Mutex<Agent<G>>>,
}

impl<G: Game> Position for Native<G> {
    fn board(&self) -> String {
        self.position.to_string()
    }

    fn plies(&self) -> u32 {
        self.plies
    }

    fn legal(&self) -> Vec<LegalMove> {
        legal_moves(&self.position)
    }

    fn play(&mut self, text: &str) -> Result<(String, Path), String> {
        if game::result(&self.position).is_some() {
            return Err("the game is over".to_owned());
        }
        let m = self.position.parse_move(text).ok_or_else(|| {
            format!(
                "'{text}' is not a legal move here (moves are written like '{}')",
                self.example()
            )
        })?;
        let name = self.position.move_name(m);
        let path = self.position.move_path(m);
        if G::REPEATS {
            self.earlier.push(self.position.hash());
        }
        self.position.make(m);
        self.plies += 1;
        Ok((name, path))
    }

    fn goals(&self) -> Option<Vec<Option<u32>>> {
        let mover = (self.plies % 2) as usize;
        let (to_move, other) = match game::result(&self.position)? {
            Outcome::Win => (100, 0),
            Outcome::Draw => (50, 50),
            Outcome::Loss => (0, 100),
        };
        let mut goals = vec![Some(other); 2];
        goals[mover] = Some(to_move);
        Some(goals)
    }

    fn search(&self) -> EngineSearch {
        let position = self.position.clone();
        let earlier = self.earlier.clone();
        let agent = self.agent.clone();
        Box::new(move |limits| {
            let choice = agent
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .choose(&position, limits, &earlier)?;
            let figures = SearchFigures::of_choice(&position, &choice);
            Some((position.move_name(choice.mv), figures))
        })
    }
}

/// The legal moves of `position` as the page offers them: a piece's cells from
/// [`Game::move_cells`], else read from the diagrams before and after the move.
pub fn legal_moves<G: Game>(position: &G) -> Vec<LegalMove> {
    if game::result(position).is_some() {
        return Vec::new();
    }
    let before = Diagram::parse(&position.to_string());
    let mut list = G::MoveList::default();
    position.generate_moves(&mut list);
    let mut legal = Vec::new();
    for &m in list.as_slice() {
        let name = position.move_name(m);
        let (froms, to) = match position.move_cells(m) {
            Some((froms, to)) => (froms, Some(to)),
            None => {
                let mut after = position.clone();
                after.make(m);
                match before.step_to(&Diagram::parse(&after.to_string())) {
                    Some((from, to)) => (vec![from], Some(to)),
                    None => (Vec::new(), None),
                }
            }
        };
        if froms.is_empty() {
            legal.push(LegalMove {
                name,
                from: None,
                to,
            });
            continue;
        }
        // One entry per piece that can make it: the page matches the two clicks.
        for from in froms {
            legal.push(LegalMove {
                name: name.clone(),
                from: Some(from),
                to,
            });
        }
    }
    legal
}

impl<G: Game> Native<G> {
    fn example(&self) -> String {
        let mut list = G::MoveList::default();
        self.position.generate_moves(&mut list);
        list.as_slice()
            .first()
            .map_or_else(String::new, |&m| self.position.move_name(m))
    }
}

/// A new page game of the game a [`Tool`] is run on.
struct Open<'a> {
    size: Option<&'a str>,
    variant: Option<&'a str>,
}

type Opened = Result<(Box<dyn Position>, &'static str, [&'static str; 2]), String>;

impl Tool for Open<'_> {
    type Output = Opened;

    fn run<S: GameSpec>(self) -> Opened {
        let position = spec::start::<S>(self.size, self.variant)?;
        let agent = Agent::new::<S>(AgentConfig {
            kind: AgentKind::Alphabeta,
            threads: 1,
            hash_mb: PAGE_HASH_MB,
            ..AgentConfig::default()
        });
        let native = Native {
            position,
            plies: 0,
            earlier: Vec::new(),
            agent: Arc::new(Mutex::new(agent)),
        };
        Ok((Box::new(native), S::NAME, S::SIDES))
    }
}

struct Offer;

impl Tool for Offer {
    type Output = GameOffer;

    fn run<S: GameSpec>(self) -> GameOffer {
        GameOffer {
            name: S::NAME,
            about: S::ABOUT,
            sizes: S::SIZES,
            default_size: S::DEFAULT_SIZE,
            variants: S::VARIANTS,
            sides: S::SIDES,
        }
    }
}

/// The games offered to people (test games only when `include_test_games`), for the
/// page's form.
pub fn offers(include_test_games: bool) -> Vec<GameOffer> {
    games::offered(include_test_games)
        .iter()
        .filter_map(|name| games::dispatch(name, Offer).ok())
        .collect()
}

struct PageGame {
    position: Box<dyn Position>,
    game: &'static str,
    sides: [&'static str; 2],
    /// The person's seat.
    human: usize,
    think: Duration,
    /// The engine's search in progress: its stop flag.
    thinking: Option<Arc<AtomicBool>>,
    last_active: Instant,
}

impl PageGame {
    fn snapshot(&self) -> Snapshot {
        Snapshot {
            game: self.game,
            roles: self.sides.iter().map(|s| (*s).to_owned()).collect(),
            us: 1 - self.human,
            board: self.position.board(),
            plies: self.position.plies(),
            goals: self.position.goals(),
            broken: None,
            to_move: self
                .position
                .goals()
                .is_none()
                .then(|| self.seat_to_move())
                .into_iter()
                .collect(),
            grid_axes: Vec::new(),
        }
    }

    fn seat_to_move(&self) -> usize {
        (self.position.plies() % 2) as usize
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// The page's games in progress and the thread that searches for them.
pub struct PageGames {
    store: Arc<Store>,
    /// Whether the test games (`walk`) are offered too.
    pub include_test_games: bool,
    games: Mutex<HashMap<u64, PageGame>>,
    queue: Mutex<mpsc::Sender<Job>>,
}

impl PageGames {
    /// Starts the page's search thread, at the least priority.
    pub fn new(store: Arc<Store>, include_test_games: bool) -> std::io::Result<Arc<PageGames>> {
        let (queue, jobs) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("page-search".to_owned())
            .spawn(move || {
                lower_priority();
                for job in jobs {
                    job();
                }
            })?;
        Ok(Arc::new(PageGames {
            store,
            include_test_games,
            games: Mutex::default(),
            queue: Mutex::new(queue),
        }))
    }

    fn games(&self) -> MutexGuard<'_, HashMap<u64, PageGame>> {
        self.games.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts a game; its record's serial number.
    pub fn create(self: &Arc<Self>, new: NewGame) -> Result<u64, PlayError> {
        if !(MIN_THINK..=MAX_THINK).contains(&new.think) {
            return Err(PlayError::BadRequest(format!(
                "think time {} ms is out of range: {}–{} ms",
                new.think.as_millis(),
                MIN_THINK.as_millis(),
                MAX_THINK.as_millis()
            )));
        }
        let offered = games::offered(self.include_test_games);
        if !offered.iter().any(|g| g.eq_ignore_ascii_case(&new.game)) {
            return Err(PlayError::BadGame(format!(
                "no game is called {:?} on this page: use {}",
                new.game,
                spec::one_of(&offered)
            )));
        }
        let open = Open {
            size: new.size.as_deref(),
            variant: new.variant.as_deref(),
        };
        let (position, game, sides) = games::dispatch(&new.game, open)
            .map_err(|e| PlayError::BadGame(e.to_string()))?
            .map_err(PlayError::BadGame)?;
        let human = sides
            .iter()
            .position(|s| s.eq_ignore_ascii_case(&new.side))
            .ok_or_else(|| {
                PlayError::BadRequest(format!(
                    "side '{}' is not one of {game}'s sides: {} or {}",
                    new.side, sides[0], sides[1]
                ))
            })?;
        let page_game = PageGame {
            position,
            game,
            sides,
            human,
            think: new.think,
            thinking: None,
            last_active: Instant::now(),
        };
        let mut games = self.games();
        if games.len() >= MAX_PAGE_GAMES {
            let idle: Vec<u64> = games
                .iter()
                .filter(|(_, g)| g.thinking.is_none() && g.last_active.elapsed() >= IDLE)
                .map(|(id, _)| *id)
                .collect();
            for id in idle {
                games.remove(&id);
                self.store.update(id, |r| r.finish(true));
                info!(id, "page game left idle: ended");
            }
            if games.len() >= MAX_PAGE_GAMES {
                return Err(PlayError::TooMany);
            }
        }
        let id = self.store.open(NewRecord {
            source: Source::Page,
            match_id: format!("page game, you play {}", sides[human]),
            snapshot: page_game.snapshot(),
            model: "engine",
            start_clock: Duration::ZERO,
            play_clock: new.think,
        });
        self.store.update(id, |r| r.turn_started(Instant::now()));
        info!(
            id,
            game,
            side = sides[human],
            think_ms = new.think.as_millis() as u64,
            "page game started"
        );
        games.insert(id, page_game);
        if let Some(g) = games.get_mut(&id) {
            self.engine_turn_if_due(id, g);
        }
        Ok(id)
    }

    /// The person's legal moves in game `id` when it is their turn (else none).
    pub fn legal(&self, id: u64) -> Option<Vec<LegalMove>> {
        let games = self.games();
        let g = games.get(&id)?;
        (g.thinking.is_none() && g.seat_to_move() == g.human).then(|| g.position.legal())
    }

    /// The person plays `text` in game `id`.
    pub fn play(self: &Arc<Self>, id: u64, text: &str) -> Result<(), PlayError> {
        let mut games = self.games();
        let g = games.get_mut(&id).ok_or(PlayError::NoSuchGame(id))?;
        if g.thinking.is_some() || g.seat_to_move() != g.human {
            return Err(PlayError::NotYourTurn("the engine is thinking"));
        }
        let (name, path) = g.position.play(text).map_err(PlayError::IllegalMove)?;
        g.last_active = Instant::now();
        let joint = {
            let mut joint = vec!["noop".to_owned(); 2];
            joint[g.human] = name;
            joint
        };
        let snapshot = g.snapshot();
        self.store.update(id, |r| {
            r.push_move_along(&joint, snapshot, Instant::now(), path)
        });
        if g.position.goals().is_some() {
            games.remove(&id);
            self.store.update(id, |r| r.finish(false));
            return Ok(());
        }
        self.engine_turn_if_due(id, g);
        Ok(())
    }

    /// The person resigns game `id`: the engine wins.
    pub fn resign(&self, id: u64) -> Result<(), PlayError> {
        let g = self.games().remove(&id).ok_or(PlayError::NoSuchGame(id))?;
        if let Some(stop) = &g.thinking {
            stop.store(true, Ordering::Relaxed);
        }
        let mut goals = vec![Some(100); 2];
        goals[g.human] = Some(0);
        self.store.update(id, |r| {
            r.goals = Some(goals);
            r.broken = Some(format!("{} resigned", g.sides[g.human]));
            r.finish(false);
        });
        Ok(())
    }

    /// Queues the engine's search if it is the engine's turn in `g`.
    fn engine_turn_if_due(self: &Arc<Self>, id: u64, g: &mut PageGame) {
        if g.seat_to_move() == g.human || g.position.goals().is_some() {
            return;
        }
        let stop = Arc::new(AtomicBool::new(false));
        g.thinking = Some(stop.clone());
        let search = g.position.search();
        let think = g.think;
        let games = Arc::clone(self);
        let job: Job = Box::new(move || {
            // The think time counts from when the search starts, not from the queue.
            let limits = Limits::until(Instant::now() + think).with_stop(stop);
            let found = search(&limits);
            games.engine_moved(id, found);
        });
        let sent = self
            .queue
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .send(job);
        if sent.is_err() {
            warn!(id, "the page's search thread has stopped");
        }
    }

    /// The engine's search for game `id` chose `found`.
    fn engine_moved(self: &Arc<Self>, id: u64, found: Option<(String, Option<SearchFigures>)>) {
        let mut games = self.games();
        // Resigned meanwhile: nothing to play.
        let Some(g) = games.get_mut(&id) else { return };
        g.thinking = None;
        let Some((name, figures)) = found else {
            warn!(id, "the engine found no move");
            return;
        };
        let (name, path) = match g.position.play(&name) {
            Ok(played) => played,
            Err(e) => {
                warn!(id, error = e, "the engine's move was refused");
                return;
            }
        };
        let joint = g.joint_after(name);
        let snapshot = g.snapshot();
        self.store.update(id, |r| {
            if let Some(f) = figures {
                r.set_pending(f);
            }
            r.push_move_along(&joint, snapshot, Instant::now(), path);
        });
        if g.position.goals().is_some() {
            games.remove(&id);
            self.store.update(id, |r| r.finish(false));
        }
    }
}

impl PageGame {
    /// The joint move just played by the side that was to move, `name`.
    fn joint_after(&self, name: String) -> Vec<String> {
        let mut joint = vec!["noop".to_owned(); 2];
        joint[1 - self.seat_to_move()] = name;
        joint
    }
}

/// Puts the calling thread at the least scheduling priority, so that searches of the
/// player's matches take the cores first.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    match rustix::process::setpriority_process(Some(rustix::thread::gettid()), 19) {
        Ok(()) => info!("page searches run at nice 19"),
        Err(e) => warn!(error = %e, "cannot lower the page search thread's priority"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(game: &str) -> Box<dyn Position> {
        let open = Open {
            size: None,
            variant: None,
        };
        games::dispatch(game, open).unwrap().unwrap().0
    }

    fn entries(legal: &[LegalMove], to: [usize; 2]) -> Vec<(String, [usize; 2])> {
        let mut found: Vec<_> = legal
            .iter()
            .filter(|m| m.to == Some(to))
            .map(|m| (m.name.clone(), m.from.unwrap()))
            .collect();
        found.sort_by_key(|f| f.1);
        found
    }

    #[test]
    fn an_ataxx_clone_is_offered_from_each_neighbouring_piece_and_a_jump_from_its_own() {
        let mut g = open("ataxx");
        g.play("0:0:1:0:").unwrap();
        g.play("6:0:5:1:").unwrap();
        // Black's pieces at x:y 0:0 and 1:0 both touch 1:1 (row 1, column 1).
        let legal = g.legal();
        let clone = entries(&legal, [1, 1]);
        assert_eq!(clone.len(), 2, "{clone:?}");
        assert_eq!((clone[0].1, clone[1].1), ([0, 0], [0, 1]));
        assert_eq!(clone[0].0, clone[1].0, "one move, however it is picked");
        // A jump (two squares diagonally) from 0:0 to 2:2 comes from its own piece only.
        let jump = entries(&legal, [2, 2]);
        assert_eq!(jump, [("0:0:2:2:".to_owned(), [0, 0])]);
        g.play(&jump[0].0).unwrap();
        assert!(
            g.board()
                .starts_with("0:1:0:0:0:0:2:\n0:0:0:0:0:2:0:\n0:0:1:"),
            "{}",
            g.board()
        );
    }

    #[test]
    fn the_test_game_is_offered_only_when_asked_for() {
        let names = |all: Vec<GameOffer>| all.iter().map(|o| o.name).collect::<Vec<_>>();
        let people = names(offers(false));
        assert!(!people.contains(&"walk"), "{people:?}");
        for game in ["breakthrough", "loa6", "loa8", "ataxx", "halma"] {
            assert!(people.contains(&game), "{game} in {people:?}");
        }
        assert!(names(offers(true)).contains(&"walk"));
    }

    #[test]
    fn a_breakthrough_step_is_read_from_the_diagrams() {
        let g = open("breakthrough");
        let legal = g.legal();
        assert!(!legal.is_empty());
        let rows = Diagram::parse(&g.board()).rows;
        for m in &legal {
            let (from, to) = (m.from.unwrap(), m.to.unwrap());
            assert_eq!(from[0].abs_diff(to[0]), 1, "{m:?}: one row forward");
            assert_eq!(rows[from[0]][from[1]], "W", "{m:?} starts on a white pawn");
            assert_eq!(rows[to[0]][to[1]], ".", "{m:?} ends on an empty square");
        }
    }
}
