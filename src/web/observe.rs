//! What the player tells an observer about its matches (the web page watches them):
//! each match as it starts, each message that brings a move, our search's figures, and
//! the end. The player only reports; keeping and showing the matches is the observer's
//! job, so a slow or absent observer changes nothing in how a match is played.

use std::time::{Duration, Instant};

use crate::game::{Game, Outcome};
use crate::search::SearchResult;

/// A match as it stands.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// The game's registered name, or `gdl` for rules played by the reasoner.
    pub game: &'static str,
    /// The roles as the rules spell them, in the rules' order.
    pub roles: Vec<String>,
    /// Our role's index among `roles`.
    pub us: usize,
    /// The position as text: a game's own diagram, or the state's facts one per line.
    pub board: String,
    pub plies: u32,
    /// Every role's goal once the game is over in our model.
    pub goals: Option<Vec<Option<u32>>>,
    /// Why the match no longer follows the game, if it does not.
    pub broken: Option<String>,
    /// The roles whose move is awaited (each with a choice to make; several when they
    /// move at once), by index; empty once the game is over.
    pub to_move: Vec<usize>,
    /// How the rules lay out a GDL state's grid (empty for the engine's games).
    pub grid_axes: Vec<super::grid_axes::GridAxes>,
}

/// Our search for one move, as the page shows it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SearchFigures {
    /// `alphabeta`, or `mcts` (Monte-Carlo tree search).
    pub method: &'static str,
    /// Alpha-beta's deepest finished iteration; the length of Monte-Carlo's best line.
    pub depth: u32,
    /// Alpha-beta's, from our view, in the evaluation's units (a won or lost score is
    /// large).
    pub score: Option<i32>,
    /// Monte-Carlo's: the chosen move's mean reward for us, 0 (lost every time) to 1.
    pub win_rate: Option<f64>,
    /// `win`, `loss` or `draw` when the search proved the position.
    pub proven: Option<&'static str>,
    /// Alpha-beta's nodes; Monte-Carlo's iterations (each a descent of the tree and,
    /// unless it ended in the tree, a random playout).
    pub nodes: u64,
    pub nodes_per_second: u64,
    /// The principal variation in the game's notation, our move first.
    pub pv: Vec<String>,
    /// Written as whole milliseconds, `ms`.
    #[serde(rename = "ms", serialize_with = "as_millis")]
    pub time: Duration,
}

fn as_millis<S: serde::Serializer>(time: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(time.as_millis() as u64)
}

impl SearchFigures {
    /// The figures of `result`, a search of `position` by its side to move.
    pub fn of<G: Game>(position: &G, result: &SearchResult<G::Move>) -> SearchFigures {
        let mut line = position.clone();
        let pv = result
            .pv
            .iter()
            .map(|&m| {
                let name = line.move_name(m);
                line.make(m);
                name
            })
            .collect();
        SearchFigures {
            method: "alphabeta",
            depth: result.depth,
            score: Some(result.score),
            win_rate: None,
            proven: result.proven.map(|o| match o {
                Outcome::Win => "win",
                Outcome::Loss => "loss",
                Outcome::Draw => "draw",
            }),
            nodes: result.nodes,
            nodes_per_second: result.nodes_per_second(),
            pv,
            time: result.time,
        }
    }

    /// The figures of the search, if any, that made `choice` in `position`.
    pub fn of_choice<G: Game>(
        position: &G,
        choice: &crate::agent::Choice<G::Move>,
    ) -> Option<SearchFigures> {
        if let Some(result) = &choice.search {
            return Some(SearchFigures::of(position, result));
        }
        let tree = choice.tree.as_ref()?;
        let mut line = position.clone();
        let pv = tree
            .line
            .iter()
            .filter_map(|step| step.iter().flatten().next().copied())
            .map(|m| {
                let name = line.move_name(m);
                line.make(m);
                name
            })
            .collect();
        Some(SearchFigures::of_mcts(tree, pv))
    }

    /// The figures of a Monte-Carlo search that made `choice`, whose best line reads `pv`.
    pub fn of_mcts<M>(choice: &crate::mcts::Choice<M>, pv: Vec<String>) -> SearchFigures {
        SearchFigures {
            method: "mcts",
            depth: pv.len() as u32,
            score: None,
            win_rate: Some(choice.value),
            proven: choice.proven.and_then(|v| match v {
                v if v >= 1.0 => Some("win"),
                v if v <= 0.0 => Some("loss"),
                0.5 => Some("draw"),
                _ => None,
            }),
            nodes: choice.iterations,
            nodes_per_second: crate::search::rate(choice.iterations, choice.elapsed),
            pv,
            time: choice.elapsed,
        }
    }
}

/// Receives the player's reports; called on the HTTP runtime, so it must not block.
pub trait Observer: Send + Sync {
    /// A match has started (a START was accepted).
    fn started(
        &self,
        match_id: &str,
        snapshot: Snapshot,
        start_clock: Duration,
        play_clock: Duration,
        model: &'static str,
    );
    /// A PLAY or STOP arrived at `received` with `joint` (each role's move as sent; `None`
    /// for NIL) and the match now stands at `snapshot`.
    fn moved(
        &self,
        match_id: &str,
        joint: Option<Vec<String>>,
        snapshot: Snapshot,
        received: Instant,
    );
    /// Our search chose the move we are about to send.
    fn searched(&self, match_id: &str, figures: SearchFigures);
    /// The match is over for the player: STOP (`aborted` false) or ABORT.
    fn finished(&self, match_id: &str, aborted: bool);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::{Agent, AgentConfig, AgentKind};
    use crate::games::breakthrough::Board;
    use crate::games::breakthrough::spec::Breakthrough;

    fn figures(kind: AgentKind) -> (String, SearchFigures) {
        let mut agent = Agent::<Board>::new::<Breakthrough>(AgentConfig {
            kind,
            threads: 1,
            hash_mb: 1,
            depth: Some(2),
            iterations: Some(2000),
            seed: Some(3),
            ..AgentConfig::default()
        });
        let board = Board::new("5x5".parse().unwrap());
        let limits = crate::search::Limits::depth(2);
        let choice = agent.choose(&board, &limits, &[]).unwrap();
        let found = SearchFigures::of_choice(&board, &choice).unwrap();
        (board.move_name(choice.mv), found)
    }

    #[test]
    fn an_engine_game_s_monte_carlo_move_has_figures_as_alpha_beta_s_has() {
        let (mv, f) = figures(AgentKind::Mcts);
        assert_eq!((f.method, f.nodes, f.score), ("mcts", 2000, None));
        assert_eq!(f.pv[0], mv, "the line starts with the move: {f:?}");
        assert!(f.pv.len() >= 2 && f.depth as usize == f.pv.len(), "{f:?}");
        assert!((0.0..=1.0).contains(&f.win_rate.unwrap()));
        let (mv, f) = figures(AgentKind::Alphabeta);
        assert_eq!((f.method, f.win_rate), ("alphabeta", None));
        assert_eq!(f.pv[0], mv);
    }
}
