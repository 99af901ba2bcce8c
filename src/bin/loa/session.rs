//! One run of the program: the game, who plays each side, and the loop that reads
//! commands and lets the AI move (`GAMES.md` §3.2, game flow).
//!
//! The loop, as the course's skeleton runs it: a game that has just ended is announced
//! once and play stops; else if the side to move is played by the AI it moves; else a
//! command is read. A game is on at start-up. When it is over, moves are refused until
//! `new`, and the other commands still work. `set` may finish a game in progress; the
//! next turn of the loop announces it (L8-6).

use std::io::{self, BufRead, Write};

use super::ai::Ai;
use super::command::{self, Command, Piece};
use super::display::{Change, Display};
use super::text;
use ggp_player::game::{self, Game, MoveBuffer, Outcome};
use ggp_player::games::loa::{DEFAULT_LIMIT, Loa, Move, MoveList, NoMove, Side};

/// Why a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// `quit` or the end of the input.
    Quit,
    /// A rejected move under `--strict`.
    IllegalMove,
}

pub struct Session<W: Write, E: Write> {
    board: Loa,
    /// Whether the AI plays black, white.
    auto: [bool; 2],
    /// Whether a game is on: moves are accepted and its end is still to be announced.
    playing: bool,
    ai: Ai,
    /// Whether this game has noted a move its AI's time guard cut short (once is enough).
    cut_noted: bool,
    out: W,
    err: E,
    /// Where the games are written as a script that replays them (`--log`).
    log: Option<Box<dyn Write>>,
    /// Whether a rejected move ends the run (`--strict`).
    strict: bool,
    /// The web page showing the game (`--display`).
    display: Option<Display>,
}

fn new_board() -> Loa {
    Loa::start(8, NoMove::Passes, Some(DEFAULT_LIMIT))
}

fn index(side: Side) -> usize {
    match side {
        Side::Black => 0,
        Side::White => 1,
    }
}

impl<W: Write, E: Write> Session<W, E> {
    /// A session at the start of a game, White played by the AI and Black typed in.
    pub fn new(out: W, err: E, seed: u64, strict: bool) -> Session<W, E> {
        Session {
            board: new_board(),
            auto: [false, true],
            playing: true,
            ai: Ai::new(seed),
            cut_noted: false,
            out,
            err,
            log: None,
            strict,
            display: None,
        }
    }

    /// The game as it stands now, for `--display`.
    pub fn board(&self) -> &Loa {
        &self.board
    }

    /// Who is played by the program: black, white.
    pub fn auto(&self) -> [bool; 2] {
        self.auto
    }

    /// Shows the game on `display` from now on.
    pub fn display_on(&mut self, display: Display) {
        self.display = Some(display);
    }

    /// Tells the page, if there is one, what changed.
    fn show(&self, change: Change) {
        if let Some(display) = &self.display {
            display.show(&self.board, self.auto, self.playing, change);
        }
    }

    /// Writes the games to `log` as a script: both sides typed in, then every `new`,
    /// `set`, `limit` and move, the results as comments.
    pub fn log_to(&mut self, mut log: Box<dyn Write>) -> io::Result<()> {
        writeln!(log, "# loa games: this script replays them")?;
        writeln!(log, "manual black\nmanual white")?;
        log.flush()?;
        self.log = Some(log);
        Ok(())
    }

    /// Runs commands from `input` until `quit`, its end, or a rejected move under
    /// `--strict`.
    pub fn run<R: BufRead>(&mut self, mut input: R) -> io::Result<Ending> {
        let mut line = Vec::new();
        loop {
            if self.playing && self.turn()? {
                continue;
            }
            let prompt = text::prompt(self.playing, self.board.side_to_move());
            write!(self.out, "{prompt}")?;
            self.out.flush()?;
            if !command::read_line(&mut input, &mut line)? {
                writeln!(self.out)?;
                self.out.flush()?;
                return Ok(Ending::Quit);
            }
            let ending = match command::parse(&String::from_utf8_lossy(&line)) {
                Ok(None) => None,
                Ok(Some(c)) => self.execute(c)?,
                Err(e) => {
                    self.error(&e)?;
                    None
                }
            };
            if let Some(ending) = ending {
                self.out.flush()?;
                return Ok(ending);
            }
        }
    }

    /// What the game does by itself before a command is read: announce its end, pass
    /// for a side without a move (L8-4), or let the AI move. Whether it did anything.
    fn turn(&mut self) -> io::Result<bool> {
        if let Some(winner) = self.result() {
            self.playing = false;
            let line = text::result(winner);
            writeln!(self.out, "{line}")?;
            self.log_line(&format!("# {}", line.trim_start_matches("* ")))?;
            self.show(Change::Other);
            return Ok(true);
        }
        let side = self.board.side_to_move();
        let mut moves = MoveList::default();
        self.board.generate_moves(&mut moves);
        if moves.as_slice() == [Move::PASS] {
            writeln!(
                self.out,
                "{} has no legal move and passes.",
                text::side_name(side)
            )?;
            self.board.make(Move::PASS);
            self.show(Change::Moved("pass".to_owned()));
            self.log_line(&format!("# {} passes", text::side_name(side)))?;
            return Ok(true);
        }
        if !self.auto[index(side)] {
            return Ok(false);
        }
        let choice = self.ai.choose(&self.board, self.ai_moves_left());
        if choice.cut_short && !self.cut_noted {
            self.cut_noted = true;
            writeln!(
                self.err,
                "note: move {}: the AI's time guard stopped its search before its node \
                 budget (this machine is slower or busier than planned), so from here on \
                 the same seed may not replay this game",
                self.board.ply() + 1
            )?;
        }
        let m = choice.mv;
        let name = self.board.move_name(m);
        writeln!(self.out, "{}", text::ai_move(&name))?;
        self.out.flush()?;
        self.board.make(m);
        self.show(Change::Moved(name.clone()));
        self.log_line(&name)?;
        Ok(true)
    }

    /// The game's result if it is over: the winner, or `None` for a tie.
    fn result(&self) -> Option<Option<Side>> {
        let to_move = self.board.side_to_move();
        game::result(&self.board).map(|o| match o {
            Outcome::Win => Some(to_move),
            Outcome::Loss => Some(to_move.other()),
            Outcome::Draw => None,
        })
    }

    /// The AI's moves still possible before the move limit, this one included.
    fn ai_moves_left(&self) -> u32 {
        let left = self
            .board
            .limit()
            .unwrap_or(DEFAULT_LIMIT)
            .saturating_sub(self.board.ply());
        let to_move = self.board.side_to_move();
        let mut count = 0;
        if self.auto[index(to_move)] {
            count += left.div_ceil(2);
        }
        if self.auto[index(to_move.other())] {
            count += left / 2;
        }
        count
    }

    fn execute(&mut self, command: Command) -> io::Result<Option<Ending>> {
        match command {
            Command::New => {
                self.board = new_board();
                self.playing = true;
                self.ai.new_game();
                self.cut_noted = false;
                self.show(Change::Reset);
                self.log_line("new")?;
            }
            Command::Move(text) => return self.typed_move(&text),
            Command::Auto(side) => {
                self.auto[index(side)] = true;
                self.show(Change::Other);
            }
            Command::Manual(side) => {
                self.auto[index(side)] = false;
                self.show(Change::Other);
            }
            Command::Set {
                square,
                piece,
                next,
            } => {
                self.set(&square, piece, next)?;
                self.show(Change::Other);
            }
            Command::Dump => {
                write!(self.out, "{}", text::dump(&self.board))?;
                self.out.flush()?;
            }
            Command::Seed(seed) => self.ai.reseed(seed),
            Command::Limit(n) => self.limit(n)?,
            Command::Help => write!(self.out, "{}", text::HELP)?,
            Command::Quit => return Ok(Some(Ending::Quit)),
        }
        Ok(None)
    }

    /// A move typed for the side to move: played if legal, else refused with the board
    /// unchanged (and the run ended under `--strict`).
    fn typed_move(&mut self, text: &str) -> io::Result<Option<Ending>> {
        let side = text::side_name(self.board.side_to_move());
        let problem = if !self.playing {
            format!("{text}: the game is over; type new to start another")
        } else {
            match self.board.parse_move(text) {
                Some(m) if !m.is_pass() => {
                    let name = self.board.move_name(m);
                    self.board.make(m);
                    self.show(Change::Moved(name));
                    self.log_line(text)?;
                    return Ok(None);
                }
                _ => format!("{text} is not a legal move for {side}"),
            }
        };
        self.error(&problem)?;
        Ok(self.strict.then_some(Ending::IllegalMove))
    }

    /// `set`: one square's content and the side to move; the ply count and the limit
    /// stay, and the winner is read from the new position (L8-6).
    fn set(&mut self, square: &str, piece: Piece, next: Side) -> io::Result<()> {
        let Some(sq) = self.board.parse_square(square) else {
            return self.error(&format!(
                "set: {:?} is not a square (a1 to h8)",
                square.chars().take(4).collect::<String>()
            ));
        };
        let bit = 1u64 << sq;
        let mut black = self.board.pieces(Side::Black) & !bit;
        let mut white = self.board.pieces(Side::White) & !bit;
        let name = match piece {
            Piece::Empty => "-",
            Piece::Stone(Side::Black) => {
                black |= bit;
                "black"
            }
            Piece::Stone(Side::White) => {
                white |= bit;
                "white"
            }
        };
        let (ply, limit) = (self.board.ply(), self.board.limit());
        self.board = Loa::from_bits(8, black, white, next, NoMove::Passes, limit);
        self.board.set_ply(ply);
        let square = self.board.square_name(sq);
        self.log_line(&format!("set {square} {name} {}", text::side_name(next)))
    }

    /// `limit N`: a tie after 2N plies (L8-1), refused when 2N plies have already been
    /// played (the skeleton's check).
    fn limit(&mut self, n: u32) -> io::Result<()> {
        let ply = self.board.ply();
        match n.checked_mul(2) {
            Some(plies) if plies > ply => {
                self.board.set_limit(Some(plies));
                self.log_line(&format!("limit {n}"))
            }
            _ => self.error(&format!(
                "limit {n}: {ply} moves have been made already; the limit must allow more"
            )),
        }
    }

    fn error(&mut self, message: &str) -> io::Result<()> {
        writeln!(self.err, "error: {message}")?;
        self.err.flush()
    }

    fn log_line(&mut self, line: &str) -> io::Result<()> {
        match &mut self.log {
            Some(log) => {
                writeln!(log, "{line}")?;
                log.flush()
            }
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `script` with both sides typed in; returns stdout and stderr.
    fn run(script: &str, strict: bool) -> (String, String, Ending) {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let ending = {
            let mut s = Session::new(&mut out, &mut err, 1, strict);
            s.auto = [false, false];
            s.run(script.as_bytes()).unwrap()
        };
        (
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
            ending,
        )
    }

    #[test]
    fn prompts_name_the_side_to_move_until_the_game_ends() {
        let (out, err, ending) = run("b1-b3\nh2-f2\n", false);
        assert_eq!(out, "b> w> b> \n");
        assert_eq!((err.as_str(), ending), ("", Ending::Quit));
    }

    #[test]
    fn an_illegal_move_is_refused_and_ends_a_strict_run() {
        let (out, err, ending) = run("b1-b2\ndump\n", false);
        assert!(err.contains("b1-b2 is not a legal move for black"), "{err}");
        assert!(out.contains("Next move: black"), "{out}");
        assert_eq!(ending, Ending::Quit);
        let (out, _, ending) = run("a2-a3\ndump\n", true);
        assert!(!out.contains("==="));
        assert_eq!(ending, Ending::IllegalMove);
    }

    #[test]
    fn a_limit_below_the_plies_played_is_refused() {
        let (_, err, _) = run("b1-b3\nh2-f2\nlimit 1\n", false);
        assert!(err.contains("limit 1"), "{err}");
        let (_, err, _) = run("b1-b3\nlimit 1\n", false);
        assert_eq!(err, "");
    }

    #[test]
    fn a_side_without_a_legal_move_passes_l8_4() {
        // Black's a1 and h8 are each boxed in by white pieces they may not pass.
        let white = [1, 8, 9, 54, 55, 62].iter().fold(0u64, |b, sq| b | 1 << sq);
        let mut out = Vec::new();
        let mut s = Session::new(&mut out, Vec::new(), 1, false);
        s.auto = [false, false];
        s.board = Loa::from_bits(8, 1 | 1 << 63, white, Side::Black, NoMove::Passes, Some(60));
        s.run("dump\n".as_bytes()).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(
            out.starts_with("black has no legal move and passes.\nw> ==="),
            "{out}"
        );
        assert!(out.contains("Next move: white"), "{out}");
    }

    #[test]
    fn the_ai_counts_its_moves_left_by_side() {
        let mut s = Session::new(Vec::new(), Vec::new(), 1, false);
        assert_eq!(s.ai_moves_left(), 30);
        s.auto = [true, true];
        assert_eq!(s.ai_moves_left(), 60);
        s.auto = [true, false];
        s.board.make(s.board.parse_move("b1-b3").unwrap());
        assert_eq!(s.ai_moves_left(), 29);
    }
}
