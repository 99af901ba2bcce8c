//! A game controller's side of the GGP wire, for tests that talk to a live player: raw
//! HTTP/1.0 over TCP exactly as the Dresden GameController and ggp-base's match server
//! write it (`shared/PROTOCOL.md`), their two dialects of the messages, and the checks of
//! a reply against the Breakthrough position.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use ggp_player::games::breakthrough::gdl::course_style_rules;
use ggp_player::games::breakthrough::{Board, BoardSize, Color, Move, MoveList};
use ggp_player::sexpr::Sexpr;
use rand::seq::IndexedRandom;
use rand_xoshiro::Xoshiro256PlusPlus;

/// How long a client waits for EOF before declaring that the server kept the connection.
pub(crate) const READ_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// Upper-case rules, role and moves; no Host header.
    Dresden,
    /// The rules' own case, spaced terms `( PLAY m (( move 1 2 1 3 ) noop ) )`.
    GgpBase,
}

impl Dialect {
    pub(crate) fn move_symbol(self) -> &'static str {
        match self {
            Dialect::Dresden => "MOVE",
            Dialect::GgpBase => "move",
        }
    }

    pub(crate) fn noop(self) -> &'static str {
        match self {
            Dialect::Dresden => "NOOP",
            Dialect::GgpBase => "noop",
        }
    }

    /// The whole request as the controller writes it: bare-LF headers, then the body
    /// followed by a newline (both controllers use Java's `println`).
    pub(crate) fn request(self, body: &str) -> Vec<u8> {
        let mut bytes = self.head(body.len()).into_bytes();
        bytes.extend_from_slice(body.as_bytes());
        bytes.push(b'\n');
        bytes
    }

    /// The header block announcing a body of `length` bytes.
    pub(crate) fn head(self, length: usize) -> String {
        match self {
            Dialect::Dresden => format!(
                "POST / HTTP/1.0\nAccept: text/delim\nSender: Gamecontroller\nReceiver: 127.0.0.1\n\
                 Content-type: text/acl\nContent-length: {length}\n\n"
            ),
            Dialect::GgpBase => format!(
                "POST / HTTP/1.0\nAccept: text/delim\nHost: 127.0.0.1\nSender: GAMESERVER\n\
                 Receiver: player\nContent-Type: text/acl\nContent-Length: {length}\n\n"
            ),
        }
    }
}

#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) headers: String,
    pub(crate) body: String,
    /// From before connecting to EOF (Dresden counts its clock from the connect).
    pub(crate) elapsed: Duration,
}

impl Reply {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }

    /// A successful reply with `text/acl`, `Connection: close` and an exact Content-Length.
    pub(crate) fn ok(&self) -> &str {
        assert_eq!(self.status, 200, "{self:?}");
        assert_eq!(self.header("content-type"), Some("text/acl"), "{self:?}");
        self.checked_framing();
        &self.body
    }

    /// An error reply: 4xx, one line of plain text.
    pub(crate) fn error(&self) -> &str {
        assert!((400..500).contains(&self.status), "{self:?}");
        assert!(
            self.header("content-type")
                .is_some_and(|t| t.starts_with("text/plain")),
            "{self:?}"
        );
        self.checked_framing();
        let line = self.body.strip_suffix('\n').unwrap_or(&self.body);
        assert!(!line.is_empty() && !line.contains('\n'), "{self:?}");
        line
    }

    fn checked_framing(&self) {
        assert!(
            self.header("connection")
                .is_some_and(|c| c.eq_ignore_ascii_case("close")),
            "{self:?}"
        );
        assert_eq!(
            self.header("content-length")
                .map(|l| l.parse::<usize>().unwrap()),
            Some(self.body.len()),
            "{self:?}"
        );
    }
}

/// Sends `bytes`, reads until EOF (failing if the server keeps the connection open).
pub(crate) fn send_raw(addr: SocketAddr, bytes: &[u8]) -> Reply {
    try_send_raw(addr, bytes).unwrap_or_else(|e| panic!("{e}"))
}

/// [`send_raw`] that says what went wrong instead of panicking (for the fuzzer, which
/// counts faults rather than stopping at the first).
pub(crate) fn try_send_raw(addr: SocketAddr, bytes: &[u8]) -> Result<Reply, String> {
    let start = Instant::now();
    let mut stream = TcpStream::connect(addr).map_err(|e| format!("cannot connect: {e}"))?;
    stream
        .set_read_timeout(Some(READ_TIMEOUT))
        .map_err(|e| e.to_string())?;
    stream
        .write_all(bytes)
        .map_err(|e| format!("cannot send the request: {e}"))?;
    read_reply(stream, start)
}

/// Reads a reply until EOF and splits it; `start` is when the exchange began.
pub(crate) fn read_reply(mut stream: TcpStream, start: Instant) -> Result<Reply, String> {
    let mut raw = Vec::new();
    if let Err(e) = stream.read_to_end(&mut raw) {
        return Err(format!(
            "no EOF after the reply ({e}; {:?} so far): {:?}",
            start.elapsed(),
            String::from_utf8_lossy(&raw)
        ));
    }
    let elapsed = start.elapsed();
    let text = String::from_utf8(raw).map_err(|e| format!("reply not UTF-8: {e}"))?;
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("no header block in {text:?}"))?;
    let (status_line, headers) = head.split_once("\r\n").unwrap_or((head, ""));
    let status = status_line
        .strip_prefix("HTTP/1.")
        .and_then(|rest| rest.split_whitespace().nth(1))
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| format!("bad status line {status_line:?}"))?;
    Ok(Reply {
        status,
        headers: headers.to_owned(),
        body: body.to_owned(),
        elapsed,
    })
}

pub(crate) fn post(addr: SocketAddr, dialect: Dialect, body: &str) -> Reply {
    send_raw(addr, &dialect.request(body))
}

pub(crate) fn info(addr: SocketAddr) -> String {
    post(addr, Dialect::GgpBase, "( INFO )").ok().to_owned()
}

// ---------------------------------------------------------------------------------------
// Messages in each dialect.

/// The course's rules for a board, in our course-style form (the kiosk's structure and
/// symbols, the size-10 defect too).
pub(crate) fn course_rules(size: BoardSize) -> Vec<Sexpr> {
    Sexpr::parse_all(&course_style_rules(size)).unwrap()
}

/// ggp-base's printing: `( move 1 2 1 3 )` for a term.
pub(crate) fn spaced(e: &Sexpr) -> String {
    match e {
        Sexpr::Atom(a) => a.clone(),
        Sexpr::List(items) => {
            let inner: Vec<String> = items.iter().map(spaced).collect();
            format!("( {} )", inner.join(" "))
        }
    }
}

/// ggp-base's printing of a list of terms (the rules, a joint move): `(( a ) b )`.
pub(crate) fn spaced_list(items: &[Sexpr]) -> String {
    let inner: Vec<String> = items.iter().map(spaced).collect();
    format!("({} )", inner.join(" "))
}

pub(crate) fn plain_list(items: &[Sexpr]) -> String {
    Sexpr::list(items.to_vec()).to_string()
}

pub(crate) fn start_message(
    dialect: Dialect,
    id: &str,
    role: Color,
    rules: &[Sexpr],
    start_clock: u64,
    play_clock: &str,
) -> String {
    start_message_as(
        dialect,
        id,
        role.role_name(),
        rules,
        start_clock,
        play_clock,
    )
}

pub(crate) fn start_message_as(
    dialect: Dialect,
    id: &str,
    role: &str,
    rules: &[Sexpr],
    start_clock: u64,
    play_clock: &str,
) -> String {
    match dialect {
        Dialect::Dresden => format!(
            "(START {id} {} {} {start_clock} {play_clock})",
            role.to_ascii_uppercase(),
            plain_list(rules).to_ascii_uppercase()
        ),
        Dialect::GgpBase => format!(
            "( START {id} {role} {} {start_clock} {play_clock} )",
            spaced_list(rules)
        ),
    }
}

/// PLAY or STOP with the previous joint move (`None`: NIL).
pub(crate) fn moves_message(
    dialect: Dialect,
    keyword: &str,
    id: &str,
    joint: Option<&[Sexpr]>,
) -> String {
    match (dialect, joint) {
        (Dialect::Dresden, None) => format!("({keyword} {id} NIL)"),
        (Dialect::Dresden, Some(j)) => format!("({keyword} {id} {})", plain_list(j)),
        (Dialect::GgpBase, None) => format!("( {keyword} {id} NIL )"),
        (Dialect::GgpBase, Some(j)) => format!("( {keyword} {id} {} )", spaced_list(j)),
    }
}

pub(crate) fn move_term(dialect: Dialect, board: &Board, mv: Move) -> Sexpr {
    let (x1, y1, x2, y2) = board.move_coords(mv);
    Sexpr::parse(&format!("({} {x1} {y1} {x2} {y2})", dialect.move_symbol())).unwrap()
}

/// The joint move `[white, black]` in which the side to move plays `mv`.
pub(crate) fn joint_move(dialect: Dialect, board: &Board, mv: Move) -> Vec<Sexpr> {
    let term = move_term(dialect, board, mv);
    let noop = Sexpr::atom(dialect.noop());
    match board.side_to_move() {
        Color::White => vec![term, noop],
        Color::Black => vec![noop, term],
    }
}

/// The reply to a PLAY on our turn: a legal move of `board`, in the rules' spelling.
pub(crate) fn check_move_reply(reply: &str, board: &Board, dialect: Dialect) -> Move {
    parse_move_reply(reply, board, dialect).unwrap_or_else(|e| panic!("{e}"))
}

/// [`check_move_reply`] that says what is wrong instead of panicking.
pub(crate) fn parse_move_reply(
    reply: &str,
    board: &Board,
    dialect: Dialect,
) -> Result<Move, String> {
    let term = Sexpr::parse(reply).map_err(|e| format!("reply {reply:?}: {e}"))?;
    let items = term
        .as_list()
        .ok_or_else(|| format!("reply {reply:?} is not a move"))?;
    if items.len() != 5 || items[0].as_atom() != Some(dialect.move_symbol()) {
        return Err(format!(
            "reply {reply:?} is not a move spelt as the rules spell it ({})",
            dialect.move_symbol()
        ));
    }
    let c: Vec<u32> = items[1..]
        .iter()
        .map(|a| a.as_atom().and_then(|a| a.parse().ok()))
        .collect::<Option<_>>()
        .ok_or_else(|| format!("reply {reply:?}: coordinates are not numbers"))?;
    board
        .find_move(c[0], c[1], c[2], c[3])
        .ok_or_else(|| format!("illegal reply {reply} in\n{board:?}"))
}

pub(crate) fn is_over(board: &Board) -> bool {
    let mut list = MoveList::default();
    board.generate_moves(&mut list);
    board.winner().is_some() || list.is_empty()
}

pub(crate) fn random_move(board: &Board, rng: &mut Xoshiro256PlusPlus) -> Move {
    let mut list = MoveList::default();
    board.generate_moves(&mut list);
    let moves: Vec<Move> = list.iter().collect();
    *moves.choose(rng).unwrap()
}
