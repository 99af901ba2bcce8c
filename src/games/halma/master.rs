//! How the course's master program asked an agent for a play (`GAMES.md` §4.4), for the
//! referee: `input.txt` in `GAME` mode with the side's CPU time left, the play read from
//! `output.txt`, `playdata.txt` kept from one of the side's plays to its next, and the
//! handout's 10 s of grace before an agent that runs on is killed.

use std::time::Duration;

use super::agent::{INPUT, OUTPUT};
use super::protocol::{Input, Mode};
use super::{Halma, Move, playdata};
use crate::spec::workdir::DirectoryProtocol;

pub static PROTOCOL: DirectoryProtocol<Halma> = DirectoryProtocol {
    input: INPUT,
    output: OUTPUT,
    write_input,
    read_output,
    carried: &[playdata::FILE],
    grace: Duration::from_secs(10),
};

/// The input of a `GAME` move, the time in whole milliseconds rounded down: never more
/// than the side has.
fn write_input(position: &Halma, time_left: Duration) -> String {
    let seconds = time_left.as_millis() as f64 / 1000.0;
    Input {
        mode: Mode::Game,
        seconds,
        position: position.clone(),
    }
    .to_string()
}

fn read_output(position: &Halma, text: &str) -> Result<Move, String> {
    position.parse_play(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_input_is_a_game_move_the_agent_reads_back() {
        let start = Halma::start();
        let text = write_input(&start, Duration::from_micros(12_345_678));
        assert!(text.starts_with("GAME\nWHITE\n12.345\n"), "{text}");
        let read = Input::parse(&text).unwrap();
        assert_eq!((read.mode, read.position), (Mode::Game, start.clone()));
        let m = read_output(&start, "E 13,12 12,11\n").unwrap();
        assert_eq!((m.from(), m.to()), (12 * 16 + 13, 11 * 16 + 12));
        assert!(
            read_output(&start, "E 15,15 14,14\n").is_err(),
            "onto a piece"
        );
        assert!(read_output(&start, "").is_err());
    }
}
