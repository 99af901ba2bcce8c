//! A set of squares of the 16×16 board in four 64-bit words: square `y * 16 + x`, so
//! each word holds four rows and a shift by 16 moves a set one row.

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// The board's side length.
pub const N: usize = 16;
/// The number of squares.
pub const SQUARES: usize = N * N;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bits(pub [u64; 4]);

pub use crate::games::side::DIRS;

/// Every square but those of column 0 (where a shift east from column 15 would land).
const NOT_COL0: Bits = Bits::column_mask(0).not_const();
/// Every square but those of column 15 (where a shift west from column 0 would land).
const NOT_COL15: Bits = Bits::column_mask(15).not_const();

impl Bits {
    pub const EMPTY: Bits = Bits([0; 4]);
    pub const ALL: Bits = Bits([u64::MAX; 4]);

    /// The square `sq` alone.
    pub const fn square(sq: usize) -> Bits {
        let mut w = [0u64; 4];
        w[sq / 64] = 1 << (sq % 64);
        Bits(w)
    }

    const fn column_mask(x: usize) -> Bits {
        let mut b = Bits::EMPTY;
        let mut y = 0;
        while y < N {
            b.0[(y * N + x) / 64] |= 1 << ((y * N + x) % 64);
            y += 1;
        }
        b
    }

    const fn not_const(self) -> Bits {
        Bits([!self.0[0], !self.0[1], !self.0[2], !self.0[3]])
    }

    /// `self` with square `sq` added (usable in constant tables).
    pub const fn with(mut self, sq: usize) -> Bits {
        self.0[sq / 64] |= 1 << (sq % 64);
        self
    }

    #[inline]
    pub fn has(self, sq: usize) -> bool {
        self.0[sq / 64] >> (sq % 64) & 1 != 0
    }

    #[inline]
    pub fn is_empty(self) -> bool {
        (self.0[0] | self.0[1] | self.0[2] | self.0[3]) == 0
    }

    #[inline]
    pub fn count(self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    /// The lowest square, if any.
    #[inline]
    pub fn first(self) -> Option<usize> {
        self.0
            .iter()
            .position(|&w| w != 0)
            .map(|i| i * 64 + self.0[i].trailing_zeros() as usize)
    }

    /// Every square moved `k` (1–63) squares up the numbering.
    #[inline]
    fn shl(self, k: u32) -> Bits {
        let w = self.0;
        Bits([
            w[0] << k,
            w[1] << k | w[0] >> (64 - k),
            w[2] << k | w[1] >> (64 - k),
            w[3] << k | w[2] >> (64 - k),
        ])
    }

    /// Every square moved `k` (1–63) squares down the numbering.
    #[inline]
    fn shr(self, k: u32) -> Bits {
        let w = self.0;
        Bits([
            w[0] >> k | w[1] << (64 - k),
            w[1] >> k | w[2] << (64 - k),
            w[2] >> k | w[3] << (64 - k),
            w[3] >> k,
        ])
    }

    /// Every square moved one step in direction `d` of [`DIRS`]; squares that would
    /// leave the board are dropped.
    #[inline]
    pub fn step(self, d: usize) -> Bits {
        let (dx, dy) = DIRS[d];
        let delta = dy * N as i32 + dx;
        let moved = if delta > 0 {
            self.shl(delta as u32)
        } else {
            self.shr((-delta) as u32)
        };
        match dx {
            1 => moved & NOT_COL0,
            -1 => moved & NOT_COL15,
            _ => moved,
        }
    }

    /// The squares 8-adjacent to some square of `self`.
    #[inline]
    pub fn neighbours(self) -> Bits {
        let h = self | self.step(0) | self.step(1);
        (h | h.shl(16) | h.shr(16)) & !self
    }

    /// The squares, lowest first.
    pub fn iter(self) -> Squares {
        Squares(self)
    }
}

/// The squares of a set, lowest first.
pub struct Squares(Bits);

impl Iterator for Squares {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        for i in 0..4 {
            let w = self.0.0[i];
            if w != 0 {
                self.0.0[i] = w & (w - 1);
                return Some(i * 64 + w.trailing_zeros() as usize);
            }
        }
        None
    }
}

impl BitAnd for Bits {
    type Output = Bits;
    #[inline]
    fn bitand(self, o: Bits) -> Bits {
        Bits(std::array::from_fn(|i| self.0[i] & o.0[i]))
    }
}
impl BitOr for Bits {
    type Output = Bits;
    #[inline]
    fn bitor(self, o: Bits) -> Bits {
        Bits(std::array::from_fn(|i| self.0[i] | o.0[i]))
    }
}
impl BitXor for Bits {
    type Output = Bits;
    #[inline]
    fn bitxor(self, o: Bits) -> Bits {
        Bits(std::array::from_fn(|i| self.0[i] ^ o.0[i]))
    }
}
impl Not for Bits {
    type Output = Bits;
    #[inline]
    fn not(self) -> Bits {
        self.not_const()
    }
}
impl BitAndAssign for Bits {
    #[inline]
    fn bitand_assign(&mut self, o: Bits) {
        *self = *self & o;
    }
}
impl BitOrAssign for Bits {
    #[inline]
    fn bitor_assign(&mut self, o: Bits) {
        *self = *self | o;
    }
}
impl BitXorAssign for Bits {
    #[inline]
    fn bitxor_assign(&mut self, o: Bits) {
        *self = *self ^ o;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The step of every square in every direction agrees with coordinates.
    #[test]
    fn steps_match_coordinates() {
        for sq in 0..SQUARES {
            let (x, y) = ((sq % N) as i32, (sq / N) as i32);
            for (d, &(dx, dy)) in DIRS.iter().enumerate() {
                let (tx, ty) = (x + dx, y + dy);
                let expected = if (0..16).contains(&tx) && (0..16).contains(&ty) {
                    Bits::square((ty * 16 + tx) as usize)
                } else {
                    Bits::EMPTY
                };
                assert_eq!(Bits::square(sq).step(d), expected, "{x},{y} dir {d}");
            }
            let n = Bits::square(sq).neighbours();
            let expected = (0..8)
                .map(|d| Bits::square(sq).step(d))
                .fold(Bits::EMPTY, |a, b| a | b);
            assert_eq!(n, expected, "{x},{y}");
        }
    }

    #[test]
    fn iteration_and_counting() {
        let b = Bits::EMPTY.with(0).with(63).with(64).with(200).with(255);
        assert_eq!(b.iter().collect::<Vec<_>>(), [0, 63, 64, 200, 255]);
        assert_eq!(b.count(), 5);
        assert_eq!(b.first(), Some(0));
        assert!(b.has(200) && !b.has(201));
        assert_eq!(Bits::EMPTY.first(), None);
    }
}
