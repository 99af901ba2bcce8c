//! How the course's harness plays two `loa` programs against each other
//! (`GAMES.md` §3.3, `#*remote move/win`): each program gets its side by `manual` and
//! `auto` commands, the other program's moves typed in as `b1-d3`, and answers with
//! `* e1-e3` lines after a prompt. The referee uses this to play any program that
//! speaks the assignment's protocol, ours or a student's.

use std::time::Duration;

use super::{Loa, Move};
use crate::game::Game;
use crate::spec::interactive::InteractiveProtocol;

/// The harness's defaults (`#*time 10 60`): 10 s a move, 60 s for a program's moves of
/// one game.
pub static PROTOCOL: InteractiveProtocol<Loa> = InteractiveProtocol {
    move_limit: Duration::from_secs(10),
    game_limit: Duration::from_secs(60),
    setup,
    write_move,
    move_text,
    is_pass: Move::is_pass,
    crash_text: "Exception in thread",
    max_lines: 3000,
    quit: "quit",
};

/// Black moves first: the program plays `side` and types in the other's moves.
fn setup(side: usize) -> &'static [&'static str] {
    if side == 0 {
        &["manual white", "auto black"]
    } else {
        &["manual black", "auto white"]
    }
}

/// A move typed in as the harness forwards it; a pass is made by the program itself.
fn write_move(position: &Loa, m: Move) -> Option<String> {
    (!m.is_pass()).then(|| position.move_name(m))
}

/// The move of a line the harness takes for an AI move: after deleting everything up to
/// the line's last `>` (the prompt, `^.*> *`), a `*`, blanks and `c1r1-c2r2` in either
/// case (L8-7), read in lower case.
pub fn move_text(line: &str) -> Option<String> {
    let line = line.rfind('>').map_or(line, |i| &line[i + 1..]);
    let body = line.trim_start().strip_prefix('*')?.trim_start();
    let b = body.as_bytes();
    let square = |c: u8, r: u8| {
        (b'a'..=b'h').contains(&c.to_ascii_lowercase()) && (b'1'..=b'8').contains(&r)
    };
    (b.len() >= 5 && square(b[0], b[1]) && b[2] == b'-' && square(b[3], b[4]))
        .then(|| body[..5].to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::MoveBuffer;
    use crate::games::loa::{DEFAULT_LIMIT, NoMove};

    #[test]
    fn reads_ai_moves_after_prompts_and_nothing_else() {
        assert_eq!(move_text("* e1-e3").as_deref(), Some("e1-e3"));
        assert_eq!(move_text("b> w> *  B4-D6 ").as_deref(), Some("b4-d6"));
        assert_eq!(move_text("   *a1-h8").as_deref(), Some("a1-h8"));
        for other in [
            "b> ",
            "* Black wins.",
            "* b4d6",
            "* i1-a1",
            "* a9-a1",
            "black has no legal move and passes.",
            "e1-e3",
            "* e1-e",
        ] {
            assert_eq!(move_text(other), None, "{other:?}");
        }
    }

    #[test]
    fn each_side_is_set_up_and_passes_are_not_typed() {
        assert_eq!(setup(0), ["manual white", "auto black"]);
        assert_eq!(setup(1), ["manual black", "auto white"]);
        let start = Loa::start(8, NoMove::Passes, Some(DEFAULT_LIMIT));
        let mut list = <Loa as Game>::MoveList::default();
        start.generate_moves(&mut list);
        let m = list.as_slice()[0];
        assert_eq!(write_move(&start, m), Some(start.move_name(m)));
        assert_eq!(write_move(&start, Move::PASS), None);
    }
}
