//! Which arguments of a GDL grid relation (`(cell ?m ?n ?w)`) the rules mean as the row
//! and which as the column, so that the page draws a reasoner's board the way its rules
//! read. The state's facts alone cannot say: `(cell 1 3 x)` is row 1, column 3 in
//! tic-tac-toe and column 1, level 3 in connect four.
//!
//! Read, in this order of trust:
//! - a rule or literal named `row` or `column` (`col`) whose first argument is one of the
//!   relation's (tic-tac-toe: `(<= (row ?m ?w) (true (cell ?m 1 ?w)) …)`): rows are then
//!   numbered from the top, as a table's are;
//! - variables named `?x…` and `?y…` in the relation (connect four's `(cell ?x ?y ?c)`):
//!   x is the column, y the row counted up.
//!
//! Without either, the page keeps its default (the first coordinate is the column, the
//! second the row counted up), which is also what `?x ?y` say.
//!
//! The rules also say how far the board reaches: the numbers they write in a relation's
//! arguments (checkers' initial men on rows 1, 2, 5 and 6, nim's `(size a 0)` in its
//! end), so that a board whose edge rows have emptied is still drawn whole.

use std::collections::BTreeMap;

use crate::sexpr::Sexpr;

/// What the rules say about one three-argument relation's coordinates: the argument
/// (0–2) that is the row, the one that is the column, and whether rows count down from
/// the top (a table's rows) rather than up (a plane's y).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GridAxes {
    pub relation: String,
    pub row: Option<usize>,
    pub col: Option<usize>,
    pub rows_down: bool,
    /// The least and greatest number the rules write in each argument (two or three),
    /// where they write one.
    pub span: Vec<Option<(i64, i64)>>,
}

/// Votes for the row and the column argument of each relation, by kind of evidence.
#[derive(Default)]
struct Votes {
    named_row: [u32; 3],
    named_col: [u32; 3],
    y: [u32; 3],
    x: [u32; 3],
    span: Vec<Option<(i64, i64)>>,
}

/// The axes the rules give to each three-argument relation they say anything about, and
/// the numbers they write in each two- or three-argument relation.
pub fn of_rules(rules: &[Sexpr]) -> Vec<GridAxes> {
    let mut votes: BTreeMap<String, Votes> = BTreeMap::new();
    for rule in rules {
        let literals = literals_of(rule);
        // Variables that a `row`/`column` literal of this rule names first.
        let named = |words: &[&str]| -> Vec<&str> {
            literals
                .iter()
                .filter(|(name, args)| words.contains(&name.as_str()) && !args.is_empty())
                .filter_map(|(_, args)| args[0].as_atom().filter(|a| a.starts_with('?')))
                .collect()
        };
        let (rows, cols) = (named(&["row"]), named(&["column", "col"]));
        for (name, args) in &literals {
            if !(2..=3).contains(&args.len()) {
                continue;
            }
            let v = votes.entry(format!("{name}/{}", args.len())).or_default();
            v.span.resize(args.len(), None);
            for (i, arg) in args.iter().enumerate() {
                if let Some(n) = arg.as_atom().and_then(|a| a.parse::<i64>().ok()) {
                    let (lo, hi) = v.span[i].get_or_insert((n, n));
                    (*lo, *hi) = ((*lo).min(n), (*hi).max(n));
                }
                let Some(var) = arg.as_atom().filter(|a| a.starts_with('?')) else {
                    continue;
                };
                v.named_row[i] += u32::from(rows.contains(&var));
                v.named_col[i] += u32::from(cols.contains(&var));
                let low = var[1..].to_ascii_lowercase();
                let digits = |rest: &str| rest.chars().all(|c| c.is_ascii_digit());
                v.x[i] += u32::from(low.strip_prefix('x').is_some_and(digits));
                v.y[i] += u32::from(low.strip_prefix('y').is_some_and(digits));
            }
        }
    }
    let best = |v: &[u32; 3]| (0..3).filter(|&i| v[i] > 0).max_by_key(|&i| (v[i], 3 - i));
    votes
        .into_iter()
        .filter_map(|(key, v)| {
            let (relation, arity) = key.rsplit_once('/')?;
            let mut axes = GridAxes {
                relation: relation.to_owned(),
                span: v.span,
                ..GridAxes::default()
            };
            if arity == "3" {
                let (row, col) = (best(&v.named_row), best(&v.named_col));
                if row.is_some() || col.is_some() {
                    (axes.row, axes.col, axes.rows_down) = (row, col, true);
                } else {
                    (axes.row, axes.col) = (best(&v.y), best(&v.x));
                }
            }
            let says =
                axes.row.is_some() || axes.col.is_some() || axes.span.iter().any(Option::is_some);
            says.then_some(axes)
        })
        .collect()
}

/// The literals of a rule or fact as (relation, arguments), lower-cased names, with
/// `true`, `next`, `init`, `not` and `or` opened: `(<= (row ?m ?w) (true (cell ?m 1 ?w)))`
/// gives `row ?m ?w` and `cell ?m 1 ?w`.
fn literals_of(rule: &Sexpr) -> Vec<(String, Vec<Sexpr>)> {
    fn open(s: &Sexpr, out: &mut Vec<(String, Vec<Sexpr>)>) {
        let Some(items) = s.as_list() else { return };
        let Some(name) = items.first().and_then(Sexpr::as_atom) else {
            return;
        };
        let name = name.to_ascii_lowercase();
        match name.as_str() {
            "true" | "next" | "init" | "not" | "or" | "base" => {
                items[1..].iter().for_each(|i| open(i, out));
            }
            _ => out.push((name, items[1..].to_vec())),
        }
    }
    let mut out = Vec::new();
    match rule.as_list() {
        Some(items) if items.first().is_some_and(|h| h.is_atom_ci("<=")) => {
            items[1..].iter().for_each(|i| open(i, &mut out));
        }
        _ => open(rule, &mut out),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axes(file: &str) -> Vec<GridAxes> {
        let path = format!("{}/gdl/{file}", env!("CARGO_MANIFEST_DIR"));
        of_rules(&Sexpr::parse_all(&std::fs::read_to_string(path).unwrap()).unwrap())
    }

    #[test]
    fn tic_tac_toe_names_its_rows_and_connect_four_its_x_and_y() {
        let ttt = axes("tictactoe.gdl");
        let cell = ttt.iter().find(|a| a.relation == "cell").unwrap();
        assert_eq!(
            (cell.row, cell.col, cell.rows_down),
            (Some(0), Some(1), true)
        );
        let c4 = axes("connect_four.gdl");
        let cell = c4.iter().find(|a| a.relation == "cell").unwrap();
        assert_eq!(
            (cell.row, cell.col, cell.rows_down),
            (Some(1), Some(0), false)
        );
    }

    #[test]
    fn rules_that_say_nothing_give_nothing() {
        let rules =
            Sexpr::parse_all("(role a) (init (cell ?a 1 b)) (<= (p ?a) (true (cell ?a ?b ?c)))")
                .unwrap();
        let cell = GridAxes {
            relation: "cell".into(),
            span: vec![None, Some((1, 1)), None],
            ..GridAxes::default()
        };
        assert_eq!(of_rules(&rules), [cell]);
        let rules = Sexpr::parse_all("(role a) (<= (p ?a) (true (cell ?a ?b ?c)))").unwrap();
        assert_eq!(of_rules(&rules), []);
    }

    #[test]
    fn the_rules_numbers_give_the_board_s_reach() {
        let checkers = axes("checkers_6x6.gdl");
        let cell = checkers.iter().find(|a| a.relation == "cell").unwrap();
        assert_eq!(cell.span, [Some((1, 6)), Some((1, 6)), None]);
        let nim = axes("nim.gdl");
        let size = nim.iter().find(|a| a.relation == "size").unwrap();
        assert_eq!(size.span, [None, Some((0, 25))]);
        assert_eq!((size.row, size.col), (None, None));
    }
}
