//! A position's text (a game's own diagram, or a GDL state's facts) read as a grid the
//! page can draw: the longest run of lines with the same number of cells (single
//! characters, or words when the line has spaces) is the board; the other lines are
//! notes (who is to move). Works for any game whose diagram is a grid of cells, without
//! naming one. A GDL state's facts are read by [`super::facts`]: a grid from its
//! `(cell x y v)`-like facts, the rest a list.

use serde::Serialize;

use super::facts;
use super::grid_axes::GridAxes;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagram {
    /// The board's cells, top line first; empty when the text has no grid.
    pub rows: Vec<Vec<String>>,
    /// Every line that is not part of the grid.
    pub notes: Vec<String>,
    /// The labels of the rows (top first) and columns when the position names them (a
    /// GDL state's coordinates); empty for the page's own (a, b, … and 1, 2, … up).
    pub row_labels: Vec<String>,
    pub col_labels: Vec<String>,
    /// Whether the cells are words to write (a GDL state's values) rather than pieces.
    pub text_cells: bool,
    /// Whether the position's facts name a cell's row before its column (`(cell row col
    /// mark)`), so that the page names cells as the facts and moves do.
    pub row_first: bool,
}

/// A grid cell: row from the top, column from the left.
pub type Cell = [usize; 2];

/// Whether a cell's text is one the games write for an empty square.
fn is_empty(cell: &str) -> bool {
    matches!(cell, "." | "-" | "_" | "0")
}

/// Whether the line's cells are words (it has spaces) rather than characters.
fn spaced(line: &str) -> bool {
    line.trim().contains(char::is_whitespace)
}

/// A line's cells: its words, or the pieces between separators (`1:0:2:`), or its
/// characters.
fn cells(line: &str) -> Vec<String> {
    let line = line.trim();
    if spaced(line) {
        line.split_whitespace().map(str::to_owned).collect()
    } else if let Some(sep) = [':', '|', ','].into_iter().find(|&c| line.contains(c)) {
        line.split(sep)
            .filter(|c| !c.is_empty())
            .map(str::to_owned)
            .collect()
    } else {
        line.chars().map(String::from).collect()
    }
}

impl Diagram {
    pub fn parse(text: &str) -> Diagram {
        Diagram::parse_with(text, &[])
    }

    /// [`Diagram::parse`], a GDL state's grid drawn as its rules' `axes` say.
    pub fn parse_with(text: &str, axes: &[GridAxes]) -> Diagram {
        let lines: Vec<&str> = text.lines().collect();
        if facts::all_facts(&lines) {
            return Diagram::of_facts(&lines, axes);
        }
        let widths: Vec<(usize, bool)> =
            lines.iter().map(|l| (cells(l).len(), spaced(l))).collect();
        // The longest run of at least two lines of equal width (two cells or more), all
        // of characters or all of words.
        let mut best = (0, 0);
        let mut start = 0;
        for i in 1..=lines.len() {
            if i == lines.len() || widths[i] != widths[start] {
                if widths[start].0 >= 2 && i - start >= 2 && i - start > best.1 - best.0 {
                    best = (start, i);
                }
                start = i;
            }
        }
        let rows = lines[best.0..best.1].iter().map(|l| cells(l)).collect();
        let notes = lines
            .iter()
            .enumerate()
            .filter(|&(i, l)| !(best.0..best.1).contains(&i) && !l.trim().is_empty())
            .map(|(_, l)| l.trim().to_owned())
            .collect();
        Diagram {
            rows,
            notes,
            row_labels: Vec::new(),
            col_labels: Vec::new(),
            text_cells: false,
            row_first: false,
        }
    }

    /// A GDL state: its grid if it has one, else its facts as notes.
    fn of_facts(lines: &[&str], axes: &[GridAxes]) -> Diagram {
        match facts::grid(lines, axes) {
            Some(g) => Diagram {
                rows: g.rows,
                notes: g.rest,
                row_labels: g.row_labels,
                col_labels: g.col_labels,
                text_cells: true,
                row_first: g.row_first,
            },
            None => Diagram {
                rows: Vec::new(),
                notes: lines.iter().map(|l| l.trim().to_owned()).collect(),
                row_labels: Vec::new(),
                col_labels: Vec::new(),
                text_cells: true,
                row_first: false,
            },
        }
    }

    /// `WIDTHxHEIGHT` of the grid, or empty without one.
    pub fn size(&self) -> String {
        match self.rows.first() {
            Some(row) => format!("{}x{}", row.len(), self.rows.len()),
            None => String::new(),
        }
    }

    /// The cell a piece left and the cell it reached between `self` and `after`: exactly
    /// two cells changed, and one now holds what the other held. `None` for any other
    /// change (a drop, a pass, captures elsewhere): such moves are chosen by name.
    pub fn step_to(&self, after: &Diagram) -> Option<(Cell, Cell)> {
        if self.rows.len() != after.rows.len() {
            return None;
        }
        let mut changed = Vec::new();
        for (r, (a, b)) in self.rows.iter().zip(&after.rows).enumerate() {
            if a.len() != b.len() {
                return None;
            }
            for (c, (x, y)) in a.iter().zip(b).enumerate() {
                if x != y {
                    changed.push([r, c]);
                }
            }
        }
        fn at(d: &Diagram, [r, c]: Cell) -> &str {
            &d.rows[r][c]
        }
        // A piece (not an empty cell) went from one cell to the other.
        let moved =
            |from: Cell, to: Cell| at(after, to) == at(self, from) && !is_empty(at(self, from));
        match changed[..] {
            [p, q] if moved(p, q) => Some((p, q)),
            [p, q] if moved(q, p) => Some((q, p)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_breakthrough_diagram_is_a_grid_and_a_note() {
        let d = Diagram::parse("BBB\n...\n.W.\nWW.\nwhite to move");
        assert_eq!(
            d.rows.len(),
            4,
            "the note is not a row, though it has three words"
        );
        assert_eq!(d.size(), "3x4");
        assert_eq!(d.rows[2], [".", "W", "."]);
        assert_eq!(d.notes, ["white to move"]);
    }

    #[test]
    fn spaced_cells_are_words_and_facts_are_notes() {
        let d = Diagram::parse("    b - b\n    - w -\nNext move: white (ply 3)");
        assert_eq!(d.rows, [["b", "-", "b"], ["-", "w", "-"]]);
        assert_eq!(d.notes, ["Next move: white (ply 3)"]);
        let facts = Diagram::parse("(step 1)\n(control white)");
        assert!(facts.rows.is_empty());
        assert_eq!(facts.notes.len(), 2);
        assert_eq!(facts.size(), "");
        let grid = Diagram::parse("(cell 1 1 x)\n(cell 1 2 b)\n(control white)");
        assert_eq!(grid.rows, [[""], ["x"]]);
        assert_eq!(grid.notes, ["(control white)"]);
        assert!(grid.text_cells);
    }

    #[test]
    fn separated_cells_are_split() {
        let d = Diagram::parse("1:0:2:\n0:0:0:\nblack to move (ply 0)");
        assert_eq!(d.rows, [["1", "0", "2"], ["0", "0", "0"]]);
        assert_eq!(d.size(), "3x2");
    }

    #[test]
    fn a_step_is_found_and_a_drop_is_not() {
        let before = Diagram::parse("B.\n.W\nW.\n..");
        let capture = Diagram::parse("W.\n..\nW.\n..");
        assert_eq!(before.step_to(&capture), Some(([1, 1], [0, 0])));
        let drop = Diagram::parse("B.\n.W\nWW\n..");
        assert_eq!(before.step_to(&drop), None);
        // A step onto an empty square: the piece moved, not the empty square.
        let up = Diagram::parse("- b\n- -");
        assert_eq!(
            up.step_to(&Diagram::parse("- -\n- b")),
            Some(([0, 1], [1, 1]))
        );
        assert_eq!(
            Diagram::parse("- -\n- b").step_to(&up),
            Some(([1, 1], [0, 1]))
        );
    }
}
