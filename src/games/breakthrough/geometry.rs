//! Board geometry: sizes, squares and the bit masks that move generation needs.
//!
//! Square index `(y - 1) * width + (x - 1)` in a `u128`, with GGP coordinates
//! x = 1..=width (left to right) and y = 1..=height (white's home row is 1).

use std::fmt;
use std::str::FromStr;

pub const MIN_WIDTH: u8 = 2;
pub const MAX_WIDTH: u8 = 10;
pub const MIN_HEIGHT: u8 = 4;
pub const MAX_HEIGHT: u8 = 10;
/// The largest number of squares on any supported board.
pub const MAX_SQUARES: usize = MAX_WIDTH as usize * MAX_HEIGHT as usize;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    #[error(
        "board size {width}x{height} is out of range: width must be {MIN_WIDTH}-{MAX_WIDTH} and height {MIN_HEIGHT}-{MAX_HEIGHT}"
    )]
    OutOfRange { width: u32, height: u32 },
    #[error(
        "malformed board size {0:?}: expected WIDTHxHEIGHT, e.g. 8x8 (width {MIN_WIDTH}-{MAX_WIDTH}, height {MIN_HEIGHT}-{MAX_HEIGHT})"
    )]
    Malformed(String),
}

/// A board size that is known to be supported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BoardSize {
    width: u8,
    height: u8,
}

impl BoardSize {
    pub fn new(width: u32, height: u32) -> Result<Self, SizeError> {
        let ok = (MIN_WIDTH as u32..=MAX_WIDTH as u32).contains(&width)
            && (MIN_HEIGHT as u32..=MAX_HEIGHT as u32).contains(&height);
        if ok {
            Ok(BoardSize {
                width: width as u8,
                height: height as u8,
            })
        } else {
            Err(SizeError::OutOfRange { width, height })
        }
    }

    pub fn width(self) -> u8 {
        self.width
    }

    pub fn height(self) -> u8 {
        self.height
    }

    /// Every supported size, for tests and tools that sweep them all.
    pub fn all() -> impl Iterator<Item = BoardSize> {
        (MIN_WIDTH..=MAX_WIDTH).flat_map(|w| {
            (MIN_HEIGHT..=MAX_HEIGHT).map(move |h| BoardSize {
                width: w,
                height: h,
            })
        })
    }
}

impl FromStr for BoardSize {
    type Err = SizeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let malformed = || SizeError::Malformed(s.to_string());
        let (w, h) = s.trim().split_once(['x', 'X', '*']).ok_or_else(malformed)?;
        let w: u32 = w.trim().parse().map_err(|_| malformed())?;
        let h: u32 = h.trim().parse().map_err(|_| malformed())?;
        BoardSize::new(w, h)
    }
}

impl fmt::Display for BoardSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

/// Which Breakthrough: how a pawn may step diagonally.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Variant {
    /// The course's chess-pawn rules: diagonally forward only to capture.
    #[default]
    Course,
    /// The usual rules elsewhere (ggp-base's public repositories, OpenSpiel, Ludii): a
    /// pawn also steps diagonally forward onto an empty square.
    Standard,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Course => "course",
            Variant::Standard => "standard",
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Variant {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "course" => Ok(Variant::Course),
            "standard" => Ok(Variant::Standard),
            _ => Err(format!(
                "unknown variant {s:?}: expected course or standard"
            )),
        }
    }
}

/// Precomputed masks for one board size and variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub size: BoardSize,
    pub variant: Variant,
    /// Distance between vertically adjacent squares (the board width).
    pub stride: u32,
    /// Every square of the board.
    pub all: u128,
    /// Every square except those in column x = 1 (pawns there cannot go left).
    pub not_first_col: u128,
    /// Every square except those in column x = width.
    pub not_last_col: u128,
    /// Goal rows: `goal[0]` = row `height` (white's), `goal[1]` = row 1 (black's).
    pub goal: [u128; 2],
    /// Columns by their distance from the nearest edge column: 0, 1, 2, and 3 or more
    /// (for the evaluation, which would otherwise rebuild them at every leaf).
    pub edge_files: [u128; 4],
}

impl Geometry {
    /// The geometry of the course variant.
    pub fn new(size: BoardSize) -> Self {
        Geometry::with_variant(size, Variant::Course)
    }

    pub fn with_variant(size: BoardSize, variant: Variant) -> Self {
        let w = size.width as u32;
        let h = size.height as u32;
        let n = w * h;
        let all = (1u128 << n) - 1;
        let row = |y: u32| ((1u128 << w) - 1) << ((y - 1) * w);
        let col = |x: u32| (0..h).fold(0u128, |m, r| m | 1u128 << (r * w + x - 1));
        let mut edge_files = [0u128; 4];
        for x in 1..=w {
            edge_files[((x - 1).min(w - x) as usize).min(3)] |= col(x);
        }
        Geometry {
            size,
            variant,
            stride: w,
            all,
            not_first_col: all & !col(1),
            not_last_col: all & !col(w),
            goal: [row(h), row(1)],
            edge_files,
        }
    }

    pub fn width(&self) -> u8 {
        self.size.width
    }

    pub fn height(&self) -> u8 {
        self.size.height
    }

    /// Mask of row `y` (1-based).
    pub fn row(&self, y: u8) -> u128 {
        ((1u128 << self.stride) - 1) << ((y as u32 - 1) * self.stride)
    }

    /// The square at GGP coordinates, if it is on the board.
    pub fn square(&self, x: u32, y: u32) -> Option<u8> {
        let ok =
            (1..=self.size.width as u32).contains(&x) && (1..=self.size.height as u32).contains(&y);
        ok.then(|| ((y - 1) * self.stride + (x - 1)) as u8)
    }

    /// The square's mirror image: the same row, column `width + 1 - x`.
    pub fn mirror(&self, sq: u8) -> u8 {
        let w = self.size.width;
        sq - sq % w + (w - 1 - sq % w)
    }

    /// GGP coordinates `(x, y)` of a square.
    pub fn coords(&self, sq: u8) -> (u8, u8) {
        let w = self.size.width;
        (sq % w + 1, sq / w + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sizes_and_rejects_bad_ones() {
        assert_eq!(
            "8x8".parse::<BoardSize>().unwrap(),
            BoardSize::new(8, 8).unwrap()
        );
        assert_eq!("3X5".parse::<BoardSize>().unwrap().height(), 5);
        assert!(matches!(
            "11x8".parse::<BoardSize>(),
            Err(SizeError::OutOfRange { .. })
        ));
        assert!(matches!(
            "1x8".parse::<BoardSize>(),
            Err(SizeError::OutOfRange { .. })
        ));
        assert!(matches!(
            "8x3".parse::<BoardSize>(),
            Err(SizeError::OutOfRange { .. })
        ));
        assert!(matches!(
            "8".parse::<BoardSize>(),
            Err(SizeError::Malformed(_))
        ));
        assert!(matches!(
            "axb".parse::<BoardSize>(),
            Err(SizeError::Malformed(_))
        ));
        assert!(matches!(
            "-1x5".parse::<BoardSize>(),
            Err(SizeError::Malformed(_))
        ));
        assert!(matches!(
            "99999999999x5".parse::<BoardSize>(),
            Err(SizeError::Malformed(_))
        ));
        let msg = "11x8".parse::<BoardSize>().unwrap_err().to_string();
        assert!(msg.contains("2-10") && msg.contains("4-10"), "{msg}");
    }

    #[test]
    fn masks_cover_the_board() {
        assert_eq!(BoardSize::all().count(), 9 * 7);
        for size in BoardSize::all() {
            let g = Geometry::new(size);
            let n = size.width() as u32 * size.height() as u32;
            assert_eq!(g.all.count_ones(), n);
            assert_eq!(g.not_first_col.count_ones(), n - size.height() as u32);
            assert_eq!(g.goal[0].count_ones(), size.width() as u32);
            assert_eq!(g.goal[0], g.row(size.height()));
            assert_eq!(g.goal[1], g.row(1));
            assert_eq!(g.variant, Variant::Course);
            let s = Geometry::with_variant(size, Variant::Standard);
            assert_eq!((s.variant, s.all), (Variant::Standard, g.all));
            for x in 1..=size.width() as u32 {
                for y in 1..=size.height() as u32 {
                    let sq = g.square(x, y).unwrap();
                    assert_eq!(g.coords(sq), (x as u8, y as u8));
                }
            }
            assert_eq!(g.square(0, 1), None);
            assert_eq!(g.square(size.width() as u32 + 1, 1), None);
            assert_eq!(g.square(1, size.height() as u32 + 1), None);
        }
    }
}
