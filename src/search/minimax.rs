//! Plain minimax to a fixed depth: every line searched, no pruning, no table, no
//! ordering, no extensions. Not a player of ours but an opponent: the baseline some
//! courses graded against (USC CSCI-561's Halma agent met a depth-2 minimax, `GAMES.md`
//! §4.4), rebuilt so that our programs can be measured against it.
//!
//! Values are negamax scores from the side to move's view: a finished game scores as
//! [`score::outcome`] at its ply (a sooner win is better), a position at the horizon as
//! the evaluation. Repetition is not looked at, as a plain minimax would not.

use super::limits::Limits;
use super::score;
use crate::game::{self, Evaluator, Game, MoveBuffer};

/// The value of every legal move of `root`, searched `depth` plies deep (the move itself
/// the first of them; `depth` 0 counts as 1), in move-generation order. The search stops
/// between two root moves once `limits` says to abort (its deadline or stop flag), so
/// that the moves already valued are returned; none are when the game is over.
pub fn root_values<G: Game, E: Evaluator<G> + ?Sized>(
    root: &G,
    eval: &E,
    depth: u32,
    limits: &Limits,
) -> Vec<(G::Move, i32)> {
    if game::result(root).is_some() {
        return Vec::new();
    }
    let mut list = G::MoveList::default();
    root.generate_moves(&mut list);
    let mut position = root.clone();
    let mut values = Vec::with_capacity(list.len());
    for &m in list.as_slice() {
        if !values.is_empty() && limits.must_abort() {
            break;
        }
        position.make(m);
        let value = -value(&mut position, eval, depth.max(1) - 1, 1);
        position.unmake(m);
        values.push((m, value));
    }
    values
}

/// The negamax value of `position`, `ply` plies below the root, searched `depth` more.
pub fn value<G: Game, E: Evaluator<G> + ?Sized>(
    position: &mut G,
    eval: &E,
    depth: u32,
    ply: usize,
) -> i32 {
    if let Some(outcome) = game::result(position) {
        return score::outcome(outcome, ply);
    }
    if depth == 0 {
        return eval.evaluate(position);
    }
    let mut list = G::MoveList::default();
    position.generate_moves(&mut list);
    let mut best = -score::INFINITY;
    for &m in list.as_slice() {
        position.make(m);
        best = best.max(-value(position, eval, depth - 1, ply + 1));
        position.unmake(m);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::breakthrough::spec::Breakthrough;
    use crate::games::halma::spec::HalmaSpec;
    use crate::search::{Options, Table, search_with};
    use crate::spec::{GameSpec, evaluation, start};
    use rand::SeedableRng;
    use rand::seq::IndexedRandom;

    /// Alpha-beta without reductions returns the minimax value at a fixed depth, as long
    /// as no side can win at the horizon (its one extension). Both must agree there.
    fn agrees_with_alphabeta<S: GameSpec>(eval: &str, depth: u32, plies: usize, seed: u64) {
        let eval = evaluation::<S>(eval).unwrap().evaluator;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut position = start::<S>(None, None).unwrap();
        let mut list = <S::Game as Game>::MoveList::default();
        for _ in 0..plies {
            position.generate_moves(&mut list);
            position.make(*list.as_slice().choose(&mut rng).unwrap());
        }
        let values = root_values(&position, eval, depth, &Limits::default());
        let best = values.iter().map(|&(_, v)| v).max().unwrap();
        let options = Options {
            reductions: false,
            ..Options::default()
        };
        let ab = search_with(
            &position,
            eval,
            &Limits::depth(depth),
            &Table::new(1),
            &options,
        );
        assert_eq!(best, ab.score, "{position:?}");
        // The move alpha-beta chose is one of those minimax values best.
        let chosen = ab.best_move.unwrap();
        assert_eq!(
            values.iter().find(|&&(m, _)| m == chosen).map(|&(_, v)| v),
            Some(best)
        );
    }

    #[test]
    fn values_agree_with_alphabeta_at_the_same_depth() {
        for seed in 0..3 {
            agrees_with_alphabeta::<HalmaSpec>("race", 2, 6 + seed as usize, seed);
            agrees_with_alphabeta::<Breakthrough>("baseline", 3, 4, seed);
        }
    }

    /// Each root move's value by two explicit loops: the mover's move, then the
    /// opponent's replies, each leaf valued from the mover's view (it is to move there).
    fn two_plies<G: Game>(root: &G, eval: &dyn crate::game::Evaluator<G>) -> Vec<i32> {
        let mut list = G::MoveList::default();
        root.generate_moves(&mut list);
        let mut values = Vec::new();
        for &m in list.as_slice() {
            let mut after = root.clone();
            after.make(m);
            if let Some(o) = game::result(&after) {
                values.push(-score::outcome(o, 1));
                continue;
            }
            let mut replies = G::MoveList::default();
            after.generate_moves(&mut replies);
            let mut worst = i32::MAX;
            for &r in replies.as_slice() {
                let mut leaf = after.clone();
                leaf.make(r);
                let v = match game::result(&leaf) {
                    Some(o) => score::outcome(o, 2),
                    None => eval.evaluate(&leaf),
                };
                worst = worst.min(v);
            }
            values.push(worst);
        }
        values
    }

    #[test]
    fn two_plies_value_each_move_by_the_opponents_best_reply() {
        use crate::games::breakthrough::{Board, Color};
        // Black (top) to move on a 4x5 board: b5-b4 walks next to white's a3, which can
        // then take it, and a black pawn on c4 can take b3 or d3 at once.
        let board = Board::from_diagram(".B..\n..B.\nW..W\n....\nWW..", Color::Black).unwrap();
        let eval = evaluation::<Breakthrough>("baseline").unwrap().evaluator;
        let values: Vec<i32> = root_values(&board, eval, 2, &Limits::default())
            .into_iter()
            .map(|(_, v)| v)
            .collect();
        assert!(values.len() > 2);
        assert_eq!(values, two_plies(&board, eval));
        assert!(values.iter().min() < values.iter().max(), "{values:?}");
        let halma = HalmaSpec::start("16x16", "course").unwrap();
        let race = evaluation::<HalmaSpec>("race").unwrap().evaluator;
        let values: Vec<i32> = root_values(&halma, race, 2, &Limits::default())
            .into_iter()
            .map(|(_, v)| v)
            .collect();
        assert_eq!(values.len(), 40);
        assert_eq!(values, two_plies(&halma, race));
    }
}
