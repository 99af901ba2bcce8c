//! Perft: the number of move sequences of exactly `depth` plies, the standard check
//! of a move generator against independently computed counts.
//!
//! A line that ends the game early (a pawn reaches its goal row, or the side to
//! move has no legal move) is not extended and adds nothing at `depth`.

use super::board::{Board, MoveList};

pub fn perft(board: &mut Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if board.winner().is_some() {
        return 0;
    }
    perft_inner(board, depth)
}

fn perft_inner(board: &mut Board, depth: u32) -> u64 {
    if depth == 1 {
        return board.count_moves() as u64;
    }
    let mut list = MoveList::default();
    board.generate_moves(&mut list);
    let mut total = 0;
    for m in list.iter() {
        // A winning move ends the game: no continuation of `depth` plies.
        if board.is_winning_move(m) {
            continue;
        }
        board.make(m);
        total += perft_inner(board, depth - 1);
        board.unmake(m);
    }
    total
}
