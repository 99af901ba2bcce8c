//! The 7×7 board's geometry: squares, the clone and jump neighbourhoods, and the Zobrist
//! keys, all built at compile time so that a fresh process pays nothing (`GAMES.md` §5).

use crate::games::side::splitmix;

/// Squares on a side.
pub const N: usize = 7;
/// Squares on the board.
pub const SQUARES: usize = N * N;
/// Every square of the board.
pub const FULL: u64 = (1 << SQUARES) - 1;

/// The jump offsets (column step, row step): two squares straight or diagonal, three
/// straight; knight-shaped and three-square diagonal offsets are not jumps (`GAMES.md` §2.2).
const JUMPS: [(i32, i32); 12] = [
    (2, 0),
    (-2, 0),
    (0, 2),
    (0, -2),
    (2, 2),
    (2, -2),
    (-2, 2),
    (-2, -2),
    (3, 0),
    (-3, 0),
    (0, 3),
    (0, -3),
];

/// The square at column `x`, row `y` (both from 0, row 0 at the top).
pub const fn square(x: usize, y: usize) -> usize {
    y * N + x
}

/// The column and row of a square.
pub const fn coords(sq: usize) -> (usize, usize) {
    (sq % N, sq / N)
}

/// The squares one king step from each square: where it clones to, and the pieces a move
/// onto it converts.
pub static NEIGHBOURS: [u64; SQUARES] = {
    let mut t = [0; SQUARES];
    let mut sq = 0;
    while sq < SQUARES {
        let (x, y) = (sq % N, sq / N);
        let mut dy = -1i32;
        while dy <= 1 {
            let mut dx = -1i32;
            while dx <= 1 {
                let (cx, cy) = (x as i32 + dx, y as i32 + dy);
                if (dx != 0 || dy != 0) && on_board(cx, cy) {
                    t[sq] |= 1 << (cy as usize * N + cx as usize);
                }
                dx += 1;
            }
            dy += 1;
        }
        sq += 1;
    }
    t
};

/// The squares a jump reaches from each square (the relation is symmetric, so these are
/// also the squares a jump onto it comes from).
pub static JUMP_TARGETS: [u64; SQUARES] = {
    let mut t = [0; SQUARES];
    let mut sq = 0;
    while sq < SQUARES {
        let (x, y) = (sq % N, sq / N);
        let mut j = 0;
        while j < JUMPS.len() {
            let (cx, cy) = (x as i32 + JUMPS[j].0, y as i32 + JUMPS[j].1);
            if on_board(cx, cy) {
                t[sq] |= 1 << (cy as usize * N + cx as usize);
            }
            j += 1;
        }
        sq += 1;
    }
    t
};

/// The squares a clone or a jump reaches from each square.
pub static MOVES: [u64; SQUARES] = {
    let mut t = [0; SQUARES];
    let mut sq = 0;
    while sq < SQUARES {
        t[sq] = NEIGHBOURS[sq] | JUMP_TARGETS[sq];
        sq += 1;
    }
    t
};

/// Each jump offset as a whole-board shift: the squares whose jump stays on the board,
/// and the bit distance (left when positive).
static JUMP_SHIFTS: [(u64, i32); JUMPS.len()] = {
    let mut t = [(0, 0); JUMPS.len()];
    let mut j = 0;
    while j < JUMPS.len() {
        let (dx, dy) = JUMPS[j];
        let mut keep = 0;
        let mut sq = 0;
        while sq < SQUARES {
            if on_board((sq % N) as i32 + dx, (sq / N) as i32 + dy) {
                keep |= 1 << sq;
            }
            sq += 1;
        }
        t[j] = (keep, dy * N as i32 + dx);
        j += 1;
    }
    t
};

/// The squares a jump from any of `b` reaches: twelve shifts however many pieces.
pub fn jump_reach(b: u64) -> u64 {
    let mut r = 0;
    for &(keep, shift) in &JUMP_SHIFTS {
        let from = b & keep;
        r |= if shift > 0 {
            from << shift
        } else {
            from >> -shift
        };
    }
    r
}

const fn on_board(x: i32, y: i32) -> bool {
    x >= 0 && y >= 0 && x < N as i32 && y < N as i32
}

/// Every square but those of the left column.
const NOT_LEFT: u64 = {
    let mut m = 0;
    let mut y = 0;
    while y < N {
        m |= ((1 << N) - 2) << (y * N);
        y += 1;
    }
    m
};
/// Every square but those of the right column.
const NOT_RIGHT: u64 = NOT_LEFT >> 1;

/// The squares one king step from any of `b`, `b` included.
pub fn grow(b: u64) -> u64 {
    let h = b | (b & NOT_RIGHT) << 1 | (b & NOT_LEFT) >> 1;
    (h | h << N | h >> N) & FULL
}

/// How many of `b` are next to each square, bit-sliced: bit `k` of the count of square
/// `sq` is bit `sq` of element `k`. A handful of whole-board additions answer for all 49
/// squares at once what a loop would ask square by square.
pub fn neighbour_counts(b: u64) -> [u64; 4] {
    let (left, right) = ((b & NOT_RIGHT) << 1, (b & NOT_LEFT) >> 1);
    // Per row: the three squares around each square, and the two beside it.
    let (row0, row1) = (b ^ left ^ right, b & left | right & (b ^ left));
    let (side0, side1) = (left ^ right, left & right);
    // The rows above and below: two 2-bit counts added into a 3-bit one.
    let (up0, up1) = (row0 << N & FULL, row1 << N & FULL);
    let (down0, down1) = (row0 >> N, row1 >> N);
    let carry = up0 & down0;
    let (v0, v1, v2) = (
        up0 ^ down0,
        up1 ^ down1 ^ carry,
        up1 & down1 | carry & (up1 ^ down1),
    );
    // Plus the two beside: at most eight, four bits.
    let carry = v0 & side0;
    let (c0, c1) = (v0 ^ side0, v1 ^ side1 ^ carry);
    let carry = v1 & side1 | carry & (v1 ^ side1);
    [c0, c1, v2 ^ carry, v2 & carry]
}

/// The largest of the bit-sliced `counts` over the squares of `among`, if any.
pub fn max_count(counts: &[u64; 4], among: u64) -> Option<u32> {
    if among == 0 {
        return None;
    }
    let (mut left, mut max) = (among, 0);
    for bit in (0..4).rev() {
        let with = left & counts[bit];
        if with != 0 {
            left = with;
            max |= 1 << bit;
        }
    }
    Some(max)
}

/// The squares of `b`, lowest first.
pub fn squares(mut b: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (b != 0).then(|| {
            let sq = b.trailing_zeros() as usize;
            b &= b - 1;
            sq
        })
    })
}

/// Zobrist keys of a piece of each side on each square.
pub static PIECE_KEYS: [[u64; SQUARES]; 2] = {
    let mut k = [[0; SQUARES]; 2];
    let mut i = 0;
    while i < 2 * SQUARES {
        k[i / SQUARES][i % SQUARES] = splitmix(0x4154_4158_0000_0000 + i as u64);
        i += 1;
    }
    k
};

/// The change of hash when a piece on a square changes colour.
pub static FLIP_KEYS: [u64; SQUARES] = {
    let mut k = [0; SQUARES];
    let mut sq = 0;
    while sq < SQUARES {
        k[sq] = PIECE_KEYS[0][sq] ^ PIECE_KEYS[1][sq];
        sq += 1;
    }
    k
};

/// The key of white to move.
pub const WHITE_TO_MOVE_KEY: u64 = splitmix(0x4154_4158_ffff);

/// The key of a ply count.
pub fn ply_key(ply: u32) -> u64 {
    splitmix(0x4154_4158_504c_0000 ^ u64::from(ply))
}
