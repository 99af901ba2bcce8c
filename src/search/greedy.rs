//! One ply of look-ahead: the moves after which the evaluation is best for the mover.
//! What a player plays when there is no time to search, and the `greedy` agent.

use crate::game::{self, Evaluator, Game, MoveBuffer, Outcome};

/// The legal moves of `position` of the best score one ply ahead, in generation order:
/// a move that wins at once first of all, then by the evaluation of the position it
/// leaves (worst for the opponent best), a move back into one of the positions of
/// `earlier` (hashes) after every other move that does not lose, a losing move last.
/// Empty when the side to move has no legal move.
pub fn greedy_moves<G: Game>(
    position: &G,
    evaluator: &dyn Evaluator<G>,
    earlier: &[u64],
) -> Vec<G::Move> {
    let mut list = G::MoveList::default();
    position.generate_moves(&mut list);
    let mut best: Vec<G::Move> = Vec::new();
    let mut best_score = i64::MIN;
    let mut child = position.clone();
    for &mv in list.as_slice() {
        child.make(mv);
        // From the mover's view: the opponent's loss is a win, and so on.
        let score = match game::result(&child) {
            Some(Outcome::Loss) => i64::MAX,
            Some(Outcome::Win) => i64::MIN + 1,
            _ if earlier.contains(&child.hash()) => i64::MIN + 2,
            Some(Outcome::Draw) => 0,
            None => -i64::from(evaluator.evaluate(&child)),
        };
        child.unmake(mv);
        if score > best_score {
            best_score = score;
            best.clear();
        }
        if score == best_score {
            best.push(mv);
        }
    }
    best
}
