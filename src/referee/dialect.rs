//! How the two real controllers write their messages (see `shared/PROTOCOL.md`):
//! Dresden upper-cases everything but the match id and writes canonical KIF;
//! ggp-base keeps the rules' case and pads the parentheses of terms with spaces.

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use crate::sexpr::Sexpr;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Dialect {
    /// The Dresden GameController (`gamecontroller-gui.jar`): all upper case.
    Dresden,
    /// ggp-base's match server and `kiosk.jar`: rules' own case, spaced terms.
    GgpBase,
}

impl Dialect {
    pub fn start(
        self,
        id: &str,
        role: &str,
        rules: &[Sexpr],
        start_clock: u64,
        play_clock: u64,
    ) -> String {
        let role = self.term(&Sexpr::atom(role));
        let rules = self.term_list(rules, true);
        match self {
            Dialect::Dresden => format!("(START {id} {role} {rules} {start_clock} {play_clock})"),
            Dialect::GgpBase => format!("( START {id} {role} {rules} {start_clock} {play_clock} )"),
        }
    }

    /// `PLAY` with the previous joint move, or `NIL` on the first turn.
    pub fn play(self, id: &str, joint: Option<&[Sexpr]>) -> String {
        self.message("PLAY", id, joint)
    }

    pub fn stop(self, id: &str, joint: &[Sexpr]) -> String {
        self.message("STOP", id, Some(joint))
    }

    pub fn abort(self, id: &str) -> String {
        match self {
            Dialect::Dresden => format!("(ABORT {id})"),
            Dialect::GgpBase => format!("( ABORT {id} )"),
        }
    }

    fn message(self, keyword: &str, id: &str, joint: Option<&[Sexpr]>) -> String {
        let moves = joint.map_or_else(|| "NIL".to_string(), |j| self.term_list(j, false));
        match self {
            Dialect::Dresden => format!("({keyword} {id} {moves})"),
            Dialect::GgpBase => format!("( {keyword} {id} {moves} )"),
        }
    }

    /// A list of terms, as the controllers write the rules and joint moves (both
    /// close the rules with ` )`; only ggp-base pads a joint move that way).
    fn term_list(self, items: &[Sexpr], rules: bool) -> String {
        let mut out = String::from("(");
        for (i, t) in items.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(&self.term(t));
        }
        out.push_str(match self {
            Dialect::Dresden if !rules || items.is_empty() => ")",
            _ => " )",
        });
        out
    }

    pub fn term(self, t: &Sexpr) -> String {
        match self {
            Dialect::Dresden => t.to_string().to_ascii_uppercase(),
            Dialect::GgpBase => {
                let mut out = String::new();
                write_spaced(&mut out, t);
                out
            }
        }
    }
}

fn write_spaced(out: &mut String, t: &Sexpr) {
    match t {
        Sexpr::Atom(a) => out.push_str(a),
        Sexpr::List(items) => {
            out.push_str("( ");
            for it in items {
                write_spaced(out, it);
                out.push(' ');
            }
            let _ = write!(out, ")");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::protocol::Request;

    #[test]
    fn messages_look_like_the_real_controllers_and_parse_back() {
        let mv = Sexpr::parse("(move 1 2 1 3)").unwrap();
        let joint = [mv, Sexpr::atom("noop")];
        assert_eq!(
            Dialect::Dresden.play("m1", Some(&joint)),
            "(PLAY m1 ((MOVE 1 2 1 3) NOOP))"
        );
        assert_eq!(
            Dialect::GgpBase.play("m1", Some(&joint)),
            "( PLAY m1 (( move 1 2 1 3 ) noop ) )"
        );
        assert_eq!(Dialect::Dresden.play("m1", None), "(PLAY m1 NIL)");
        let rules = Sexpr::parse_all("(role white) (width 3) (<= terminal (true (x)))").unwrap();
        let dresden = Dialect::Dresden.start("m.1-a", "white", &rules, 10, 2);
        assert_eq!(
            dresden,
            "(START m.1-a WHITE ((ROLE WHITE) (WIDTH 3) (<= TERMINAL (TRUE (X))) ) 10 2)"
        );
        for d in [Dialect::Dresden, Dialect::GgpBase] {
            for text in [
                d.start("m.1-a", "white", &rules, 10, 2),
                d.play("m.1-a", Some(&joint)),
                d.play("m.1-a", None),
                d.stop("m.1-a", &joint),
                d.abort("m.1-a"),
            ] {
                let req = Request::parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
                assert_eq!(req.match_id(), Some("m.1-a"), "{text}");
            }
        }
    }
}
