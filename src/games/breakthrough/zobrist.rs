//! Zobrist keys, computed at compile time from a fixed seed so that hashes are
//! identical across runs and processes.
//!
//! Each board width has keys of its own, chosen so that the key of a square's mirror
//! image (the same row, column `width + 1 - x`) is the square's key rotated by 32 bits,
//! and the side-to-move key is its own rotation. Rotation distributes over XOR, so the
//! hash of a position's mirror image is its hash rotated by 32 bits: the solvers key a
//! position and its mirror image alike at no cost to make and unmake (see
//! [`crate::game::Game::mirror_hash`]).

use super::geometry::{MAX_HEIGHT, MAX_SQUARES, MAX_WIDTH};

const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

/// A key equal to its own rotation by 32 bits: its low half twice.
const fn symmetric(k: u64) -> u64 {
    (k & 0xffff_ffff) * 0x1_0000_0001
}

type Keys = [[[u64; MAX_SQUARES]; 2]; MAX_WIDTH as usize + 1];

const fn make_keys() -> (Keys, u64) {
    let mut keys = [[[0u64; MAX_SQUARES]; 2]; MAX_WIDTH as usize + 1];
    let mut state = 0x6272_6561_6B74_6872; // "breakthr"
    let mut width = 1;
    while width <= MAX_WIDTH as usize {
        let mut color = 0;
        while color < 2 {
            let mut y = 0;
            while y < MAX_HEIGHT as usize {
                // Left half and middle column drawn, right half their rotations.
                let mut x = 0;
                while 2 * x < width {
                    let (s, k) = splitmix64(state);
                    state = s;
                    let mirror = width - 1 - x;
                    if mirror == x {
                        keys[width][color][y * width + x] = symmetric(k);
                    } else {
                        keys[width][color][y * width + x] = k;
                        keys[width][color][y * width + mirror] = k.rotate_left(32);
                    }
                    x += 1;
                }
                y += 1;
            }
            color += 1;
        }
        width += 1;
    }
    let (_, side) = splitmix64(state);
    (keys, symmetric(side))
}

const KEYS: (Keys, u64) = make_keys();

/// Key of a pawn of `color` (0 white, 1 black) on square `sq` of a board `width` wide.
#[inline(always)]
pub fn pawn(width: u8, color: usize, sq: u8) -> u64 {
    KEYS.0[width as usize][color][sq as usize]
}

/// Key toggled whenever the side to move changes.
pub const SIDE: u64 = KEYS.1;

/// The hash of the mirror image of the position hashed `hash` (see the module doc).
#[inline(always)]
pub fn mirrored(hash: u64) -> u64 {
    hash.rotate_left(32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_distinct_within_a_width_and_mirror_by_rotation() {
        for width in 2..=MAX_WIDTH {
            let w = width as usize;
            let mut seen = std::collections::HashSet::new();
            for color in 0..2 {
                for sq in 0..w * MAX_HEIGHT as usize {
                    let k = pawn(width, color, sq as u8);
                    assert!(seen.insert(k), "width {width}: key repeated");
                    let (x, y) = (sq % w, sq / w);
                    let mirror = (y * w + w - 1 - x) as u8;
                    assert_eq!(pawn(width, color, mirror), mirrored(k));
                }
            }
        }
        assert_eq!(mirrored(SIDE), SIDE);
    }
}
