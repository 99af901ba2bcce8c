//! The `Game` trait: everything the search needs to know about a two-player,
//! alternating-move, perfect-information game, and nothing more.
//!
//! The games of the course family differ in ways the trait spells out:
//! - **Repetition.** Breakthrough's pawns only advance, but Lines of Action, Ataxx and
//!   Halma can revisit a position. Such a game sets [`Game::REPEATS`]; the search then
//!   scores a position already on its path as a draw and never stores a value that
//!   depends on that path as proven.
//! - **A move limit** (a tie after 60 plies in CS61B's Lines of Action, the end of the
//!   100th turn in Ataxx) is carried by the position: [`Game::decided`] reports the
//!   outcome once the limit is reached, and [`Game::hash`] covers the ply count, so that
//!   a proven value is valid for every path to the same (position, count).
//! - **A pass** is a move: a side that must pass while the other can move lists exactly
//!   one legal move, the pass. Only a side with no legal move at all meets
//!   [`Game::outcome_without_moves`].
//! - **Branching** is bounded per game ([`Game::MAX_MOVES`]); the search has no bound of
//!   its own.
//! - **Notation** is the game's own ([`Game::move_name`], [`Game::parse_move`]).

use std::fmt::{Debug, Display};

/// The result of a finished game, seen from the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Win,
    Loss,
    Draw,
}

impl Outcome {
    /// The same result seen from the other side.
    pub fn flipped(self) -> Outcome {
        match self {
            Outcome::Win => Outcome::Loss,
            Outcome::Loss => Outcome::Win,
            Outcome::Draw => Outcome::Draw,
        }
    }
}

/// A fixed-capacity move list that lives on the stack: the search allocates no
/// heap memory per node.
pub trait MoveBuffer<M>: Default {
    fn as_slice(&self) -> &[M];
    fn as_mut_slice(&mut self) -> &mut [M];
    fn clear(&mut self);
    fn len(&self) -> usize {
        self.as_slice().len()
    }
    fn is_empty(&self) -> bool {
        self.as_slice().is_empty()
    }
}

/// The least [`Game::move_priority`] of a capture or a win.
pub const TACTICAL_PRIORITY: i32 = 100;

/// `Display` writes the position as the game's own text diagram (the board, then a line
/// saying who is to move): what logs and the web page show.
pub trait Game: Clone + Debug + Display + Send + Sync + 'static {
    type Move: Copy + Eq + Default + Debug + Send + Sync + 'static;
    type MoveList: MoveBuffer<Self::Move>;

    /// The most legal moves any position of the game can have: the capacity of its
    /// [`Game::MoveList`].
    const MAX_MOVES: usize;
    /// Whether a position can occur twice in one game (from the same ply count, when the
    /// game has a move limit). The search then treats a position that is already on its
    /// path as a draw, valid for that path only.
    const REPEATS: bool = false;

    /// Fills `list` with every legal move of the side to move (cleared first).
    fn generate_moves(&self, list: &mut Self::MoveList);
    /// Plays `m`, which must be legal in the current position.
    fn make(&mut self, m: Self::Move);
    /// Takes back `m`, which must be the last move made.
    fn unmake(&mut self, m: Self::Move);
    /// The outcome when the game is over regardless of the moves available (for
    /// Breakthrough: a pawn stands on its goal row), seen from the side to move.
    fn decided(&self) -> Option<Outcome>;
    /// Whether the side to move has a legal move (cheaper than listing them).
    fn has_moves(&self) -> bool {
        let mut list = Self::MoveList::default();
        self.generate_moves(&mut list);
        !list.is_empty()
    }
    /// The outcome when the side to move has no legal move.
    fn outcome_without_moves(&self) -> Outcome;
    /// A Zobrist-style hash of everything that decides the rest of the game: the pieces,
    /// the side to move, and the ply count when the game has a move limit.
    fn hash(&self) -> u64;
    /// The hash of the position's mirror image, in a game whose rules look the same in a
    /// mirror (for Breakthrough: left and right swapped). A position and its mirror image
    /// have one value, so the solvers keep them under one key. It must be the
    /// [`Game::hash`] of the mirror image, and [`Game::mirror_code`] must give the mirror
    /// image of each move. `None` (the default): the game has no such symmetry.
    fn mirror_hash(&self) -> Option<u64> {
        None
    }
    /// The code ([`Game::move_code`]) of the mirror image of the move coded `code` (see
    /// [`Game::mirror_hash`]).
    fn mirror_code(&self, code: u16) -> u16 {
        code
    }
    /// A cheap static ordering hint: larger means search earlier. Captures and wins must
    /// be given [`TACTICAL_PRIORITY`] or more, quiet moves less: the search orders the
    /// former before killer moves and never reduces them.
    fn move_priority(&self, m: Self::Move) -> i32;
    /// The move in the game's own notation, for logs and principal lines.
    fn move_name(&self, m: Self::Move) -> String;
    /// Where a person picks `m` on a drawn board: the cells of every piece that may be
    /// said to make it, and the cell it goes to (row from the top and column from the
    /// left of the position's diagram, [`Display`]). `None` (the default) lets the web page
    /// read them from the diagrams before and after the move, which finds a piece that left
    /// one cell for another; a game whose moves leave their piece behind (a clone that any
    /// neighbouring piece makes) says so here.
    fn move_cells(&self, _m: Self::Move) -> Option<(Vec<[usize; 2]>, [usize; 2])> {
        None
    }
    /// The cells `m` carries its piece through, start to end, in the coordinates of
    /// [`Game::move_cells`], when that is more than its start and end (a chain of jumps),
    /// so that the page can show every landing; `None` (the default) otherwise.
    fn move_path(&self, _m: Self::Move) -> Option<Vec<[usize; 2]>> {
        None
    }
    /// The legal move written `text` in the game's notation ([`Game::move_name`]), if
    /// there is one. Case and runs of spaces do not matter.
    fn parse_move(&self, text: &str) -> Option<Self::Move> {
        let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        let text = words(text);
        let mut list = Self::MoveList::default();
        self.generate_moves(&mut list);
        list.as_slice()
            .iter()
            .copied()
            .find(|&m| words(&self.move_name(m)).eq_ignore_ascii_case(&text))
    }
    /// A compact code of the move (the transposition table stores it; history tables
    /// index by it modulo their size). Distinct moves of one position have distinct codes,
    /// all below `u16::MAX`.
    fn move_code(m: Self::Move) -> u16;
    /// Whether the side to move has a move that wins at once (cheaper than listing moves;
    /// the search then needs no further look at this position).
    fn can_win_now(&self) -> bool {
        self.winning_move().is_some()
    }
    /// A move that wins at once, if there is one.
    fn winning_move(&self) -> Option<Self::Move> {
        None
    }
    /// Whether the side not to move would win at once if it were its turn: a threat the
    /// side to move must answer, so the search looks one ply further instead of guessing.
    fn threatened(&self) -> bool {
        false
    }
    /// Bounds on the value for the side to move (least, most) that hold whatever either
    /// side plays, known without a search (for Breakthrough: a race already won). The
    /// proof-number solver closes a position whose bounds settle what it is proving.
    fn value_bounds(&self) -> Option<(Outcome, Outcome)> {
        None
    }
    /// The position's proven value for the side to move and moves that keep it (every
    /// one, or as many as the table knows), when the game ships a table of solved
    /// positions holding it (for Breakthrough: the start positions of the boards solved
    /// and the positions after their first move). The player then chooses among those
    /// moves only, so it never gives the value away.
    fn solved(&self) -> Option<(Outcome, Vec<Self::Move>)> {
        None
    }
}

/// The game's result if it is over: decided, or no legal move for the side to move.
pub fn result<G: Game>(game: &G) -> Option<Outcome> {
    game.decided()
        .or_else(|| (!game.has_moves()).then(|| game.outcome_without_moves()))
}

/// Up to `plies` moves from `start`, each drawn at random from the legal ones with `rng`,
/// and the position they reach (fewer moves where a side has none): the random openings
/// of `selfplay` and of tournaments between players that would otherwise repeat one game.
pub fn random_line<G: Game>(start: &G, plies: u32, rng: &mut impl rand::Rng) -> (G, Vec<G::Move>) {
    use rand::seq::IndexedRandom;
    let mut position = start.clone();
    let mut line = Vec::new();
    let mut list = G::MoveList::default();
    for _ in 0..plies {
        position.generate_moves(&mut list);
        let Some(&m) = list.as_slice().choose(rng) else {
            break;
        };
        position.make(m);
        line.push(m);
    }
    (position, line)
}

/// Perft: the number of move sequences of exactly `depth` plies. A line that ends the game
/// early is not extended and adds nothing at `depth`.
pub fn perft<G: Game>(game: &mut G, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if game.decided().is_some() {
        return 0;
    }
    let mut list = G::MoveList::default();
    game.generate_moves(&mut list);
    if depth == 1 {
        return list.len() as u64;
    }
    let mut total = 0;
    for &m in list.as_slice() {
        game.make(m);
        total += perft(game, depth - 1);
        game.unmake(m);
    }
    total
}

/// A static evaluation, in centi-pawn-like units, from the side to move's view.
pub trait Evaluator<G: Game>: Send + Sync {
    fn evaluate(&self, game: &G) -> i32;
}

/// A move list of at most `N` moves on the stack, for games that need nothing more.
/// Pushing past `N` panics with a message in every build: a game's bound that its move
/// generation exceeds is a bug to report, not memory to overwrite.
#[derive(Clone, Debug)]
pub struct ArrayMoves<M, const N: usize> {
    moves: [M; N],
    len: usize,
}

impl<M: Copy + Default, const N: usize> Default for ArrayMoves<M, N> {
    fn default() -> Self {
        ArrayMoves {
            moves: [M::default(); N],
            len: 0,
        }
    }
}

impl<M: Copy + Default, const N: usize> ArrayMoves<M, N> {
    #[inline]
    pub fn push(&mut self, m: M) {
        assert!(self.len < N, "more than {N} legal moves in one position");
        self.moves[self.len] = m;
        self.len += 1;
    }
}

impl<M: Copy + Default, const N: usize> MoveBuffer<M> for ArrayMoves<M, N> {
    fn as_slice(&self) -> &[M] {
        &self.moves[..self.len]
    }
    fn as_mut_slice(&mut self) -> &mut [M] {
        &mut self.moves[..self.len]
    }
    fn clear(&mut self) {
        self.len = 0;
    }
}
