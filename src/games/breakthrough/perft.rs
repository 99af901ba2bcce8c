//! Perft: the number of move sequences of exactly `depth` plies, the standard check
//! of a move generator against independently computed counts.
//!
//! A line that ends the game early (a pawn reaches its goal row, or the side to
//! move has no legal move) is not extended and adds nothing at `depth`.

use super::board::{Board, MoveList};
use super::geometry::Variant;

pub fn perft(board: &mut Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if board.winner().is_some() {
        return 0;
    }
    // The variant is chosen once, not at every node.
    match board.variant() {
        Variant::Course => perft_inner::<false>(board, depth),
        Variant::Standard => perft_inner::<true>(board, depth),
    }
}

fn perft_inner<const STANDARD: bool>(board: &mut Board, depth: u32) -> u64 {
    if depth == 1 {
        return board.count_moves_of::<STANDARD>() as u64;
    }
    let mut list = MoveList::default();
    board.generate_moves_of::<STANDARD>(&mut list);
    let mut total = 0;
    for m in list.iter() {
        // A winning move ends the game: no continuation of `depth` plies.
        if board.is_winning_move(m) {
            continue;
        }
        board.make(m);
        total += perft_inner::<STANDARD>(board, depth - 1);
        board.unmake(m);
    }
    total
}
