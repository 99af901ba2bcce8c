//! Micro-benchmarks of move generation: listing moves, bulk counting, and a small
//! perft, on the fixed `bench` positions. Run with `cargo bench --bench movegen`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use ggp_player::games::breakthrough::spec::POSITIONS;
use ggp_player::games::breakthrough::{Board, MoveList, perft::perft};

fn movegen(c: &mut Criterion) {
    let boards: Vec<Board> = POSITIONS.iter().map(|p| p.board()).collect();
    c.bench_function("generate_moves (8 positions)", |b| {
        let mut list = MoveList::default();
        b.iter(|| {
            let mut n = 0;
            for board in &boards {
                black_box(board).generate_moves(&mut list);
                n += list.len();
            }
            n
        })
    });
    c.bench_function("count_moves (8 positions)", |b| {
        b.iter(|| {
            boards
                .iter()
                .map(|bd| black_box(bd).count_moves())
                .sum::<u32>()
        })
    });
    c.bench_function("make+unmake all moves (8 positions)", |b| {
        let mut boards = boards.clone();
        let mut list = MoveList::default();
        b.iter(|| {
            let mut h = 0u64;
            for board in boards.iter_mut() {
                board.generate_moves(&mut list);
                for m in list.iter() {
                    board.make(m);
                    h ^= board.hash();
                    board.unmake(m);
                }
            }
            h
        })
    });
    c.bench_function("perft 8x8 depth 5", |b| {
        let mut board = Board::new("8x8".parse().unwrap());
        b.iter(|| perft(black_box(&mut board), 5))
    });
}

criterion_group!(benches, movegen);
criterion_main!(benches);
