//! Lines of Action evaluations, from the side to move's view.
//!
//! A side wins by gathering its pieces into one group, so both evaluations measure how
//! far each side is from that. [`Concentration`] looks only at the pieces' mean distance
//! to their centre of mass. [`Structure`] adds what that distance misses: how many groups
//! remain (two tight clusters far apart have a small spread for their size but still need
//! many moves), how many neighbours each piece already has, whether the pieces stand in
//! the centre, from where they can reach any group, or on the edge, where half their
//! directions are gone, how many moves each side has (the one with more choices can
//! usually both gather and block), and whose turn it is.

use super::{Loa, Tables};
use crate::game::{Evaluator, MoveBuffer};

/// Pieces gathered round their centre of mass are near a win: the opponent's mean spread
/// less one's own.
pub struct Concentration;

impl Evaluator<Loa> for Concentration {
    fn evaluate(&self, p: &Loa) -> i32 {
        let own = p.pieces[p.side.index()];
        let opp = p.pieces[p.side.other().index()];
        spread(p.tables, opp) - spread(p.tables, own)
    }
}

/// The mean king-move distance of the pieces `b` to their centre of mass, times 100.
fn spread(t: &Tables, b: u64) -> i32 {
    let count = b.count_ones() as i32;
    if count <= 1 {
        return 0;
    }
    let n = t.n as i32;
    let (mut sc, mut sr) = (0, 0);
    let mut x = b;
    while x != 0 {
        let sq = x.trailing_zeros() as i32;
        sc += sq % n;
        sr += sq / n;
        x &= x - 1;
    }
    // Distances in units of 1/count of a square, so the centre needs no rounding.
    let mut total = 0;
    let mut x = b;
    while x != 0 {
        let sq = x.trailing_zeros() as i32;
        total += (count * (sq % n) - sc)
            .abs()
            .max((count * (sq / n) - sr).abs());
        x &= x - 1;
    }
    100 * total / (count * count)
}

/// Spread, groups, neighbours, centre, edge and mobility (see the module doc).
pub struct Structure;

/// Weights of [`Structure`]'s terms, each term a per-piece mean times 100 (groups and
/// mobility: counts), chosen by self-play against [`Concentration`] at fixed depth
/// (`selfplay structure concentration --game loa6 --depth 4` and `--game loa8 --depth
/// 3`, 600 games each): mobility was worth most, about 60 Elo on 6×6 and 110 on 8×8
/// (at spread weight 4, mobility weight 16 against none).
const SPREAD: i32 = 8;
const GROUPS: i32 = 60;
const LINKS: i32 = 1;
const CENTRE: i32 = 1;
const EDGE: i32 = 1;
const MOBILITY: i32 = 24;
/// The side to move is a move nearer its goal than the same position with the other to
/// move.
const TEMPO: i32 = 20;

/// One side's terms.
struct Shape {
    spread: i32,
    groups: i32,
    links: i32,
    centre: i32,
    edge: i32,
}

impl Shape {
    fn of(t: &Tables, b: u64) -> Shape {
        let count = (b.count_ones() as i32).max(1);
        let n = t.n as i32;
        let mut centre = 0;
        let mut x = b;
        while x != 0 {
            let sq = x.trailing_zeros() as i32;
            // Twice the king-move distance to the board's centre point.
            centre += (2 * (sq % n) - n + 1)
                .abs()
                .max((2 * (sq / n) - n + 1).abs());
            x &= x - 1;
        }
        Shape {
            spread: spread(t, b),
            groups: groups(t, b),
            links: 100 * links(t, b) / count,
            centre: 50 * centre / count,
            edge: 100 * (b & t.edge).count_ones() as i32 / count,
        }
    }
}

/// The number of 8-connected groups of `b`.
fn groups(t: &Tables, mut b: u64) -> i32 {
    let mut count = 0;
    while b != 0 {
        let mut group = b & b.wrapping_neg();
        loop {
            let next = t.grow(group) & b;
            if next == group {
                break;
            }
            group = next;
        }
        b &= !group;
        count += 1;
    }
    count
}

/// The number of pairs of neighbouring pieces in `b`.
fn links(t: &Tables, b: u64) -> i32 {
    let n = t.n;
    let east = (b & t.not_last_col) << 1;
    let north = b << n;
    let north_east = (b & t.not_last_col) << (n + 1);
    let north_west = (b & t.not_first_col) << (n - 1);
    (east & b).count_ones() as i32
        + (north & b & t.board).count_ones() as i32
        + (north_east & b & t.board).count_ones() as i32
        + (north_west & b & t.board).count_ones() as i32
}

/// The side to move's moves, captures counted twice (they also break the opponent's
/// groups).
fn mobility(p: &Loa) -> i32 {
    let mut list = super::MoveList::default();
    p.push_moves(&mut list);
    list.as_slice()
        .iter()
        .map(|m| if m.capture { 2 } else { 1 })
        .sum()
}

impl Evaluator<Loa> for Structure {
    fn evaluate(&self, p: &Loa) -> i32 {
        let own = Shape::of(p.tables, p.pieces[p.side.index()]);
        let opp = Shape::of(p.tables, p.pieces[p.side.other().index()]);
        SPREAD * (opp.spread - own.spread)
            + GROUPS * (opp.groups - own.groups)
            + LINKS * (own.links - opp.links)
            + CENTRE * (opp.centre - own.centre)
            + EDGE * (opp.edge - own.edge)
            + MOBILITY * (mobility(p) - mobility(&p.flipped()))
            + TEMPO
    }
}
