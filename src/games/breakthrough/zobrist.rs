//! Zobrist keys, computed at compile time from a fixed seed so that hashes are
//! identical across runs and processes.

use super::geometry::MAX_SQUARES;

const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

const fn make_keys() -> ([[u64; MAX_SQUARES]; 2], u64) {
    let mut keys = [[0u64; MAX_SQUARES]; 2];
    let mut state = 0x6272_6561_6B74_6872; // "breakthr"
    let mut color = 0;
    while color < 2 {
        let mut sq = 0;
        while sq < MAX_SQUARES {
            let (s, k) = splitmix64(state);
            state = s;
            keys[color][sq] = k;
            sq += 1;
        }
        color += 1;
    }
    let (_, side) = splitmix64(state);
    (keys, side)
}

const KEYS: ([[u64; MAX_SQUARES]; 2], u64) = make_keys();

/// Key of a pawn of `color` (0 white, 1 black) on square `sq`.
#[inline(always)]
pub fn pawn(color: usize, sq: u8) -> u64 {
    KEYS.0[color][sq as usize]
}

/// Key toggled whenever the side to move changes.
pub const SIDE: u64 = KEYS.1;
