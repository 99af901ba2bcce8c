//! `loa --display`: the game on the player's web page (`src/web/`), served by this
//! program on 127.0.0.1. The page shows the game as it stands and follows it live; when
//! the side to move is typed in (`manual`), the page may make its move too, which is
//! handed to the session as if typed. Standard output is untouched: the display's
//! messages go to standard error.

use std::io::{self, BufRead, Read};
use std::net::SocketAddr;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::Router;
use axum::routing::get;

use super::command;
use ggp_player::game::{self, Game, Outcome};
use ggp_player::games::loa::{Loa, Side};
use ggp_player::web::host::Host;
use ggp_player::web::observe::Snapshot;
use ggp_player::web::page_games::{LegalMove, PlayError, legal_moves};
use ggp_player::web::store::{NewRecord, Source, Store};
use ggp_player::web::{self, Site};

/// A line of input for the session: typed, or sent by the page; `End` when the typed
/// input has ended.
pub enum Line {
    Text(Vec<u8>),
    End,
    /// The typed input could not be read (a line too long to be a command): the
    /// session ends with this error, as it would without the page.
    Failed(String),
}

/// The session's input when the page may add moves: lines from a channel, read as a
/// [`BufRead`]; the end of the typed input is its end.
pub struct Lines {
    from: mpsc::Receiver<Line>,
    line: Vec<u8>,
    at: usize,
    /// The typed input has ended: every later read is at the end too. (The page keeps a
    /// sender of its own, so the channel itself never says so.)
    ended: bool,
}

impl Lines {
    pub fn new(from: mpsc::Receiver<Line>) -> Lines {
        Lines {
            from,
            line: Vec::new(),
            at: 0,
            ended: false,
        }
    }
}

impl Read for Lines {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = {
            let have = self.fill_buf()?;
            let n = have.len().min(buf.len());
            buf[..n].copy_from_slice(&have[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Lines {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.at == self.line.len() && !self.ended {
            match self.from.recv() {
                Ok(Line::Text(text)) => (self.line, self.at) = (text, 0),
                Ok(Line::Failed(error)) => {
                    (self.line, self.at) = (Vec::new(), 0);
                    self.ended = true;
                    return Err(io::Error::new(io::ErrorKind::InvalidData, error));
                }
                Ok(Line::End) | Err(_) => {
                    (self.line, self.at) = (Vec::new(), 0);
                    self.ended = true;
                }
            }
        }
        Ok(&self.line[self.at..])
    }

    fn consume(&mut self, n: usize) {
        self.at = (self.at + n).min(self.line.len());
    }
}

/// Copies `input` line by line to `to`, then says it has ended (on its own thread).
pub fn forward(mut input: impl BufRead, to: mpsc::Sender<Line>) {
    let mut line = Vec::new();
    loop {
        match command::read_line(&mut input, &mut line) {
            Ok(false) => break,
            Err(e) => {
                let _ = to.send(Line::Failed(e.to_string()));
                return;
            }
            Ok(true) => {
                if to.send(Line::Text(line.clone())).is_err() {
                    return;
                }
            }
        }
    }
    let _ = to.send(Line::End);
}

/// What changed in the session, for the page.
pub enum Change {
    /// The side that was to move played `name`.
    Moved(String),
    /// A new game.
    Reset,
    /// Anything else: `set`, who plays which side, the end of the game.
    Other,
}

/// The game as the page may act on it.
struct Shared {
    id: u64,
    board: Loa,
    /// Whether the side to move is typed in and the game is on.
    page_may_move: bool,
}

/// The page's view of the session, and its server.
pub struct Display {
    store: Arc<Store>,
    shared: Arc<Mutex<Shared>>,
    pub addr: SocketAddr,
}

fn lock(shared: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    shared.lock().unwrap_or_else(|e| e.into_inner())
}

fn index(side: Side) -> usize {
    match side {
        Side::Black => 0,
        Side::White => 1,
    }
}

/// Every side's goal once the game is over.
fn goals(board: &Loa) -> Option<Vec<Option<u32>>> {
    let to_move = index(board.side_to_move());
    let (mine, other) = match game::result(board)? {
        Outcome::Win => (100, 0),
        Outcome::Draw => (50, 50),
        Outcome::Loss => (0, 100),
    };
    let mut goals = vec![Some(other); 2];
    goals[to_move] = Some(mine);
    Some(goals)
}

fn snapshot(board: &Loa, auto: [bool; 2]) -> Snapshot {
    Snapshot {
        game: "loa8",
        roles: vec!["black".to_owned(), "white".to_owned()],
        // The program's side (White unless only Black is the program's).
        us: usize::from(!auto[0] || auto[1]),
        board: board.to_string(),
        plies: board.ply(),
        goals: goals(board),
        broken: None,
        to_move: goals(board)
            .is_none()
            .then(|| index(board.side_to_move()))
            .into_iter()
            .collect(),
        grid_axes: Vec::new(),
    }
}

impl Display {
    /// Serves the page on 127.0.0.1:`port` (0: any free port) on a thread of its own,
    /// showing `board`; the page's moves are sent to `lines`.
    pub fn start(
        port: u16,
        board: &Loa,
        auto: [bool; 2],
        lines: mpsc::Sender<Line>,
    ) -> io::Result<Display> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", port))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let site = Site::new()?;
        let store = Arc::clone(&site.store);
        let id = store.open(NewRecord {
            source: Source::Program,
            match_id: "loa (CS61B program)".to_owned(),
            snapshot: snapshot(board, auto),
            model: "engine",
            start_clock: Duration::ZERO,
            play_clock: Duration::ZERO,
        });
        let shared = Arc::new(Mutex::new(Shared {
            id,
            board: board.clone(),
            page_may_move: false,
        }));
        site.set_host(Arc::new(LoaHost {
            shared: Arc::clone(&shared),
            lines: Mutex::new(lines),
        }));
        let app = Router::new()
            .route(
                "/",
                get(web::page).fallback(web::api::wrong_method(&["GET"])),
            )
            .merge(web::router(site));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        std::thread::Builder::new()
            .name("display".to_owned())
            .spawn(move || {
                runtime.block_on(async move {
                    match tokio::net::TcpListener::from_std(listener) {
                        Ok(listener) => {
                            if let Err(e) = axum::serve(listener, app).await {
                                eprintln!("loa: the display's server stopped: {e}");
                            }
                        }
                        Err(e) => eprintln!("loa: the display cannot listen: {e}"),
                    }
                });
            })?;
        let display = Display {
            store,
            shared,
            addr,
        };
        display.show(board, auto, true, Change::Other);
        Ok(display)
    }

    /// The session now stands at `board` after `change`; `playing` says whether the game
    /// is on (its end not yet announced).
    pub fn show(&self, board: &Loa, auto: [bool; 2], playing: bool, change: Change) {
        let mut shared = lock(&self.shared);
        let over = game::result(board).is_some();
        shared.board = board.clone();
        shared.page_may_move = playing && !over && !auto[index(board.side_to_move())];
        let snap = snapshot(board, auto);
        self.store.update(shared.id, |r| {
            r.us = snap.us;
            match change {
                Change::Moved(name) => {
                    let mut joint = vec!["noop".to_owned(); 2];
                    joint[1 - index(board.side_to_move())] = name;
                    r.push_move(&joint, snap, Instant::now());
                }
                Change::Reset | Change::Other => {
                    if matches!(change, Change::Reset) {
                        r.moves.clear();
                        r.status = "live";
                    }
                    r.board = snap.board;
                    r.plies = snap.plies;
                    r.goals = snap.goals;
                }
            }
            if !playing {
                r.finish(false);
            }
        });
    }
}

/// The session's game as the page's host.
struct LoaHost {
    shared: Arc<Mutex<Shared>>,
    lines: Mutex<mpsc::Sender<Line>>,
}

impl Host for LoaHost {
    fn owns(&self, id: u64) -> bool {
        lock(&self.shared).id == id
    }

    fn legal(&self) -> Option<Vec<LegalMove>> {
        let shared = lock(&self.shared);
        shared.page_may_move.then(|| legal_moves(&shared.board))
    }

    fn play(&self, text: &str) -> Result<(), PlayError> {
        let mut shared = lock(&self.shared);
        if !shared.page_may_move {
            return Err(PlayError::NotYourTurn(
                "the program moves now, or the game is over",
            ));
        }
        let name = match shared.board.parse_move(text) {
            Some(m) if !m.is_pass() => shared.board.move_name(m),
            _ => {
                return Err(PlayError::IllegalMove(format!(
                    "'{text}' is not a legal move here (moves are written like b1-d3)"
                )));
            }
        };
        // One move per turn: the next is taken once the session has played this one.
        shared.page_may_move = false;
        eprintln!("loa: the page played {name}");
        let sent = self
            .lines
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .send(Line::Text(format!("{name}\n").into_bytes()));
        sent.map_err(|_| PlayError::NotYourTurn("the program has ended"))
    }
}
