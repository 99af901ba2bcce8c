//! Move generation with bitboard shifts: a pawn moves one square straight forward onto
//! an empty square, or one square diagonally forward to capture an enemy pawn; in the
//! standard variant also diagonally forward onto an empty square.

use super::board::{Board, Color, Move, MoveList};
use super::geometry::Variant;

/// The target sets of the side to move, with the shift that maps each target back to
/// its origin.
struct Targets {
    forward: u128,
    /// Diagonal targets towards higher x (captures, and empty squares in the standard
    /// variant).
    right: u128,
    /// Diagonal targets towards lower x.
    left: u128,
    /// The enemy pawns: a diagonal target among them is a capture.
    enemy: u128,
}

impl Board {
    /// The targets under this board's variant: one well-predicted branch (every position
    /// of a match has the same variant), then straight-line code for each variant.
    #[inline(always)]
    fn targets(&self) -> Targets {
        self.targets_for(self.side)
    }

    /// The targets `side` would have if it were to move.
    #[inline(always)]
    fn targets_for(&self, side: Color) -> Targets {
        match self.geo.variant {
            Variant::Course => self.targets_of::<false>(side),
            Variant::Standard => self.targets_of::<true>(side),
        }
    }

    /// `STANDARD`: diagonal steps may also enter empty squares.
    #[inline(always)]
    fn targets_of<const STANDARD: bool>(&self, side: Color) -> Targets {
        let g = &self.geo;
        let s = g.stride;
        let [white, black] = self.pawns;
        let empty = g.all & !(white | black);
        let diagonal_empty = if STANDARD { empty } else { 0 };
        match side {
            Color::White => Targets {
                forward: (white << s) & empty,
                right: ((white & g.not_last_col) << (s + 1)) & (black | diagonal_empty),
                left: ((white & g.not_first_col) << (s - 1)) & (black | diagonal_empty),
                enemy: black,
            },
            Color::Black => Targets {
                forward: (black >> s) & empty,
                right: ((black & g.not_last_col) >> (s - 1)) & (white | diagonal_empty),
                left: ((black & g.not_first_col) >> (s + 1)) & (white | diagonal_empty),
                enemy: white,
            },
        }
    }

    /// Every legal move of the side to move, captures first. A position in which
    /// the game is already won still yields moves: callers check `winner` first.
    #[inline]
    pub fn generate_moves(&self, list: &mut MoveList) {
        match self.geo.variant {
            Variant::Course => self.generate_moves_of::<false>(list),
            Variant::Standard => self.generate_moves_of::<true>(list),
        }
    }

    /// [`Board::generate_moves`] for a variant known at compile time (`STANDARD` must
    /// match the board's), so that loops over many positions branch once, not per call.
    #[inline(always)]
    pub(super) fn generate_moves_of<const STANDARD: bool>(&self, list: &mut MoveList) {
        use crate::game::MoveBuffer;
        list.clear();
        let t = self.targets_of::<STANDARD>(self.side);
        let s = self.geo.stride as i32;
        // Offsets from target back to origin.
        let (fwd, right, left) = match self.side {
            Color::White => (-s, -(s + 1), -(s - 1)),
            Color::Black => (s, s - 1, s + 1),
        };
        if STANDARD {
            push_all(list, t.right & t.enemy, right, true);
            push_all(list, t.left & t.enemy, left, true);
            push_all(list, t.forward, fwd, false);
            push_all(list, t.right & !t.enemy, right, false);
            push_all(list, t.left & !t.enemy, left, false);
        } else {
            // Every diagonal target is a capture.
            push_all(list, t.right, right, true);
            push_all(list, t.left, left, true);
            push_all(list, t.forward, fwd, false);
        }
    }

    /// The number of legal moves, without listing them (bulk counting for perft).
    #[inline]
    pub fn count_moves(&self) -> u32 {
        match self.geo.variant {
            Variant::Course => self.count_moves_of::<false>(),
            Variant::Standard => self.count_moves_of::<true>(),
        }
    }

    /// [`Board::count_moves`] for a variant known at compile time.
    #[inline(always)]
    pub(super) fn count_moves_of<const STANDARD: bool>(&self) -> u32 {
        let t = self.targets_of::<STANDARD>(self.side);
        t.forward.count_ones() + t.right.count_ones() + t.left.count_ones()
    }

    /// Whether the side to move can put a pawn on its goal row with its next move.
    #[inline]
    pub fn can_win_now(&self) -> bool {
        self.reaches_goal(self.side)
    }

    /// Whether the side not to move could put a pawn on its goal row if it moved now.
    #[inline]
    pub fn threatened(&self) -> bool {
        self.reaches_goal(self.side.other())
    }

    #[inline(always)]
    fn reaches_goal(&self, side: Color) -> bool {
        let t = self.targets_for(side);
        (t.forward | t.right | t.left) & self.geo.goal[side.index()] != 0
    }

    /// Whether the side to move has at least one legal move.
    #[inline]
    pub fn has_moves(&self) -> bool {
        let t = self.targets();
        t.forward | t.right | t.left != 0
    }
}

#[inline(always)]
fn push_all(list: &mut MoveList, mut targets: u128, offset: i32, capture: bool) {
    while targets != 0 {
        let to = targets.trailing_zeros() as i32;
        targets &= targets - 1;
        list.push(Move::new((to + offset) as u8, to as u8, capture));
    }
}
