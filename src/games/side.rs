//! What the board games of the course family share below their rules: the two sides
//! (Black and White in Lines of Action, Ataxx and Halma), the eight directions of a
//! king's step, and the mixing function their Zobrist keys are drawn from at compile
//! time.

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    Black,
    White,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::Black => Side::White,
            Side::White => Side::Black,
        }
    }

    /// 0 for Black, 1 for White: the index of per-side arrays.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// The eight king-step directions as (column step, row step), in opposite pairs: `d` and
/// `d ^ 1` are opposite (Lines of Action counts a line from both halves).
pub const DIRS: [(i32, i32); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (-1, -1),
    (1, -1),
    (-1, 1),
];

/// SplitMix64's output function: well-spread 64-bit keys from consecutive numbers, in a
/// `const` context.
pub const fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}
