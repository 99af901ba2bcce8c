//! A GDL state's facts (one per line, as the reasoner reports a game the engine does not
//! know) read as a board: when some relation has three arguments, two of them whole
//! numbers throughout (`(cell 1 3 x)`), those two are a cell's row and column and the
//! third is what the cell holds. Which is the row is the rules' to say
//! ([`super::grid_axes`]); without a word from them, the first is the column and the
//! second the row counted up. The other facts stay a list.

use std::collections::{BTreeMap, BTreeSet};

use super::grid_axes::GridAxes;

/// Values that mean an empty cell in the usual GDL games (`b` for blank in tic-tac-toe).
const EMPTY_WORDS: [&str; 5] = ["b", "blank", "empty", "none", "e"];

/// The grid read from facts: rows top first, the labels of its rows and columns, whether
/// a fact names the row before the column, and the facts that are not part of it.
#[derive(Debug, PartialEq, Eq)]
pub struct FactGrid {
    pub rows: Vec<Vec<String>>,
    pub row_labels: Vec<String>,
    pub col_labels: Vec<String>,
    pub row_first: bool,
    pub rest: Vec<String>,
}

/// A fact's relation and arguments, when it is flat: `(cell 1 3 x)`.
fn flat(line: &str) -> Option<(&str, Vec<&str>)> {
    let inner = line.trim().strip_prefix('(')?.strip_suffix(')')?;
    if inner.contains(['(', ')']) {
        return None;
    }
    let mut words = inner.split_whitespace();
    Some((words.next()?, words.collect()))
}

/// Whether every line is a fact (the reasoner's board), and there is one.
pub fn all_facts(lines: &[&str]) -> bool {
    let mut facts = lines.iter().filter(|l| !l.trim().is_empty()).peekable();
    facts.peek().is_some() && facts.all(|l| l.trim().starts_with('(') && l.trim().ends_with(')'))
}

/// The grid of `lines` (facts), drawn as `axes` (from the rules) say, or `None` when no
/// relation is a grid's.
pub fn grid(lines: &[&str], axes: &[GridAxes]) -> Option<FactGrid> {
    cells(lines, axes).or_else(|| tracks(lines, axes))
}

/// Adds the ends of the rules' `span` to a coordinate's values.
fn widen(values: &mut BTreeSet<i64>, span: Option<(i64, i64)>) {
    if let Some((lo, hi)) = span {
        values.extend([lo, hi]);
    }
}

/// The widest range a board is drawn over: beyond it, a relation is not a board.
const MOST_CELLS: i64 = 32;

/// The tracks of a two-argument relation that pairs names with numbers, or `None`.
fn tracks(lines: &[&str], axes: &[GridAxes]) -> Option<FactGrid> {
    let number = |s: &str| s.parse::<i64>().ok();
    let mut by_relation: BTreeMap<&str, Vec<(&str, i64)>> = BTreeMap::new();
    let mut not_tracks: BTreeSet<&str> = BTreeSet::new();
    for line in lines {
        if let Some((name, args)) = flat(line)
            && args.len() == 2
        {
            match (number(args[0]), number(args[1])) {
                (None, Some(n)) => by_relation.entry(name).or_default().push((args[0], n)),
                _ => {
                    not_tracks.insert(name);
                }
            }
        }
    }
    let (name, facts) = by_relation
        .into_iter()
        .filter(|(name, facts)| {
            // Two names at least, each once: one place per name.
            let names: BTreeSet<&str> = facts.iter().map(|f| f.0).collect();
            !not_tracks.contains(name) && names.len() >= 2 && names.len() == facts.len()
        })
        .max_by_key(|(_, facts)| facts.len())?;
    let mut xs: BTreeSet<i64> = facts.iter().map(|f| f.1).collect();
    if let Some(a) = axes
        .iter()
        .find(|a| a.relation.eq_ignore_ascii_case(name) && a.span.len() == 2)
    {
        widen(&mut xs, a.span[1]);
    }
    let (x0, x1) = (*xs.first()?, *xs.last()?);
    if x1 - x0 + 1 > MOST_CELLS {
        return None;
    }
    let rows = facts
        .iter()
        .map(|&(who, at)| {
            (x0..=x1)
                .map(|x| {
                    if x == at {
                        who.to_owned()
                    } else {
                        String::new()
                    }
                })
                .collect()
        })
        .collect();
    Some(FactGrid {
        rows,
        row_labels: facts.iter().map(|f| f.0.to_owned()).collect(),
        col_labels: (x0..=x1).map(|x| x.to_string()).collect(),
        row_first: true,
        rest: rest_of(lines, name, 2),
    })
}

/// The facts of `lines` that are not of relation `name` with `arity` arguments.
fn rest_of(lines: &[&str], name: &str, arity: usize) -> Vec<String> {
    lines
        .iter()
        .filter(|l| flat(l).is_none_or(|(n, a)| n != name || a.len() != arity))
        .map(|l| l.trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect()
}

/// The grid of a three-argument relation with two numbers, or `None`.
fn cells(lines: &[&str], axes: &[GridAxes]) -> Option<FactGrid> {
    // Relation -> its facts' arguments, for those with three.
    let mut by_relation: BTreeMap<&str, Vec<Vec<&str>>> = BTreeMap::new();
    for line in lines {
        if let Some((name, args)) = flat(line)
            && args.len() == 3
        {
            by_relation.entry(name).or_default().push(args);
        }
    }
    let number = |s: &str| s.parse::<i64>().ok();
    // The relation with the most facts whose two coordinates are numbers throughout.
    let (name, facts, coords) = by_relation
        .into_iter()
        .filter(|(_, facts)| facts.len() >= 2)
        .filter_map(|(name, facts)| {
            let numeric: Vec<usize> = (0..3)
                .filter(|&i| facts.iter().all(|f| number(f[i]).is_some()))
                .collect();
            // Two coordinates; with three numbers, the first two.
            (numeric.len() >= 2).then(|| (name, facts, [numeric[0], numeric[1]]))
        })
        .max_by_key(|(_, facts, _)| facts.len())?;
    let value = (0..3).find(|i| !coords.contains(i)).unwrap_or(2);
    // Column and row arguments: as the rules say, else the first is the column.
    let said = axes.iter().find(|a| a.relation.eq_ignore_ascii_case(name));
    let (mut col, mut row, mut rows_down) = (coords[0], coords[1], false);
    if let Some(a) = said {
        let other = |p: usize| coords[usize::from(coords[0] == p)];
        if let Some(r) = a.row.filter(|r| coords.contains(r)) {
            (row, col, rows_down) = (r, other(r), a.rows_down);
        } else if let Some(c) = a.col.filter(|c| coords.contains(c)) {
            (col, row, rows_down) = (c, other(c), a.rows_down);
        }
    }
    let mut xs: BTreeSet<i64> = facts.iter().filter_map(|f| number(f[col])).collect();
    let mut ys: BTreeSet<i64> = facts.iter().filter_map(|f| number(f[row])).collect();
    if let Some(a) = axes
        .iter()
        .find(|a| a.relation.eq_ignore_ascii_case(name) && a.span.len() == 3)
    {
        widen(&mut xs, a.span[col]);
        widen(&mut ys, a.span[row]);
    }
    // A sparse relation over a wide range is not a board.
    let span = |s: &BTreeSet<i64>| s.last().unwrap_or(&0) - s.first().unwrap_or(&0) + 1;
    let (width, height) = (span(&xs), span(&ys));
    if !(1..=MOST_CELLS).contains(&width)
        || !(1..=MOST_CELLS).contains(&height)
        || width * height < 2
    {
        return None;
    }
    let (x0, y0) = (*xs.first()?, *ys.first()?);
    let mut rows = vec![vec![String::new(); width as usize]; height as usize];
    for f in &facts {
        let (x, y) = (number(f[col])?, number(f[row])?);
        let text = f[value];
        // A table's rows top down; a plane's highest y on top, as boards are drawn with
        // their first rank at the bottom.
        let r = if rows_down {
            y - y0
        } else {
            y0 + height - 1 - y
        } as usize;
        if !EMPTY_WORDS.contains(&text.to_ascii_lowercase().as_str()) {
            rows[r][(x - x0) as usize] = text.to_owned();
        }
    }
    let row_labels = (0..height)
        .map(|i| {
            (if rows_down {
                y0 + i
            } else {
                y0 + height - 1 - i
            })
            .to_string()
        })
        .collect();
    let col_labels = (0..width).map(|i| (x0 + i).to_string()).collect();
    Some(FactGrid {
        rows,
        row_labels,
        col_labels,
        row_first: row < col,
        rest: rest_of(lines, name, 3),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tic_tac_toe_s_cells_are_a_grid_of_marks() {
        let facts = "(cell 1 1 x)\n(cell 1 2 b)\n(cell 1 3 b)\n(cell 2 1 b)\n(cell 2 2 o)\n\
                     (cell 2 3 b)\n(cell 3 1 b)\n(cell 3 2 b)\n(cell 3 3 b)\n(control oplayer)";
        let lines: Vec<&str> = facts.lines().collect();
        assert!(all_facts(&lines));
        let g = grid(&lines, &[]).unwrap();
        // Without the rules: column x, row y, the highest y on top.
        assert_eq!(g.rows[2], ["x", "", ""]);
        assert_eq!(g.rows[1], ["", "o", ""]);
        assert_eq!(g.rows[0], ["", "", ""]);
        assert_eq!(g.row_labels, ["3", "2", "1"]);
        assert_eq!(g.col_labels, ["1", "2", "3"]);
        assert_eq!(g.rest, ["(control oplayer)"]);
        assert!(!g.row_first);
    }

    #[test]
    fn the_rules_axes_turn_the_grid() {
        // Tic-tac-toe's rules: (cell row column mark), rows from the top.
        let rules = "(<= (row ?m ?w) (true (cell ?m 1 ?w)) (true (cell ?m 2 ?w)))";
        let axes =
            super::super::grid_axes::of_rules(&crate::sexpr::Sexpr::parse_all(rules).unwrap());
        let lines = ["(cell 1 3 x)", "(cell 2 1 o)", "(cell 3 3 b)"];
        let g = grid(&lines, &axes).unwrap();
        assert_eq!(g.rows, [["", "", "x"], ["o", "", ""], ["", "", ""]]);
        assert_eq!(g.row_labels, ["1", "2", "3"]);
        assert_eq!(g.col_labels, ["1", "2", "3"]);
        assert!(g.row_first);
    }

    #[test]
    fn a_sparse_board_has_its_empty_cells_and_other_facts_are_no_grid() {
        // Connect four's discs only where they are, the value first.
        let lines = [
            "(disc red 1 1)",
            "(disc yellow 2 1)",
            "(disc red 1 2)",
            "(turn red)",
        ];
        let g = grid(&lines, &[]).unwrap();
        assert_eq!(g.rows, [["red", ""], ["red", "yellow"]]);
        assert!(grid(&["(score a 1)", "(turn red)"], &[]).is_none());
        assert!(grid(&["(step 1)", "(control x)"], &[]).is_none());
        assert!(!all_facts(&["BB", ".."]));
    }

    fn axes_of(file: &str) -> Vec<GridAxes> {
        let path = format!("{}/gdl/{file}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(path).unwrap();
        super::super::grid_axes::of_rules(&crate::sexpr::Sexpr::parse_all(&text).unwrap())
    }

    #[test]
    fn a_board_whose_edges_have_emptied_is_drawn_whole() {
        // Checkers 6x6 late in a game: two men left, in columns 3-4 and rows 3-4.
        let lines = ["(cell 3 3 rm)", "(cell 4 4 wk)", "(control red)"];
        let g = grid(&lines, &axes_of("checkers_6x6.gdl")).unwrap();
        assert_eq!(g.col_labels, ["1", "2", "3", "4", "5", "6"]);
        assert_eq!(g.row_labels, ["6", "5", "4", "3", "2", "1"]);
        assert_eq!(g.rows[2][3], "wk");
        assert_eq!(g.rows[3][2], "rm");
        // Without the rules, only what the facts reach.
        assert_eq!(grid(&lines, &[]).unwrap().col_labels, ["3", "4"]);
    }

    #[test]
    fn names_paired_with_numbers_are_tracks() {
        let lines = ["(at left 3)", "(at right 0)"];
        let g = grid(&lines, &axes_of("race.gdl")).unwrap();
        assert_eq!(g.row_labels, ["left", "right"]);
        let reach: Vec<String> = (0..=11).map(|i| i.to_string()).collect();
        assert_eq!(g.col_labels, reach);
        assert_eq!(g.rows[0][3], "left");
        assert_eq!(g.rows[1][0], "right");
        assert_eq!(g.rows.iter().flatten().filter(|c| !c.is_empty()).count(), 2);
        let lines = [
            "(size a 11)",
            "(size b 0)",
            "(size c 4)",
            "(size d 25)",
            "(control first)",
        ];
        let g = grid(&lines, &axes_of("nim.gdl")).unwrap();
        assert_eq!(g.row_labels, ["a", "b", "c", "d"]);
        assert_eq!(g.col_labels.len(), 26);
        assert_eq!(g.rows[3][25], "d");
        assert_eq!(g.rest, ["(control first)"]);
        // A name twice, or numbers first, is no track.
        assert!(grid(&["(at left 3)", "(at left 4)"], &[]).is_none());
        assert!(grid(&["(at 1 3)", "(at 2 4)"], &[]).is_none());
    }
}
