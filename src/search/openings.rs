//! The moves that keep the value of every position near a solved one (`solve
//! --openings`): the source of the player's table of solved openings.

use super::limits::Limits;
use super::prooftable::ProofTable;
use super::solver::{SolvedOpening, keeping_moves};
use crate::game::{self, Game, MoveBuffer};

/// A walk over the positions near one, each solved over the same table.
pub struct Openings<'a> {
    /// The board size and variant, as the table of openings names them.
    pub board: &'a str,
    pub variant: &'a str,
    pub limits: &'a Limits,
    pub table: &'a ProofTable,
    pub threads: usize,
    /// The moves from the start to the position being solved, in the game's notation.
    pub after: Vec<String>,
}

impl Openings<'_> {
    /// Gives `found` the line of `position` (reached by `self.after`) and, `plies` deep,
    /// of every position after it, in the order the game lists its moves; finished
    /// games are left out. Stops at the first position not solved within the limits.
    pub fn walk<G: Game>(
        &mut self,
        position: &G,
        plies: u32,
        found: &mut dyn FnMut(SolvedOpening) -> Result<(), String>,
    ) -> Result<(), String> {
        if game::result(position).is_some() {
            return Ok(());
        }
        let k =
            keeping_moves(position, self.limits, self.table, self.threads).ok_or_else(|| {
                let position = match self.after.is_empty() {
                    true => "the start position".to_owned(),
                    false => format!("the position after {}", self.after.join(" ")),
                };
                format!(
                    "{}: {position} was not solved within --time (or a line ran too deep)",
                    self.board
                )
            })?;
        found(SolvedOpening {
            board: self.board.to_owned(),
            variant: self.variant.to_owned(),
            after: self.after.clone(),
            value: k.value,
            keeping: k.moves.iter().map(|&m| position.move_name(m)).collect(),
            line_only: false,
        })?;
        if plies > 0 {
            let mut list = G::MoveList::default();
            position.generate_moves(&mut list);
            for &m in list.as_slice() {
                let mut child = position.clone();
                child.make(m);
                self.after.push(position.move_name(m));
                self.walk(&child, plies - 1, found)?;
                self.after.pop();
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::game::Outcome;
    use crate::games::breakthrough::spec::Breakthrough;

    fn walk(size: &str, plies: u32, limits: &Limits) -> Result<Vec<SolvedOpening>, String> {
        let root = crate::spec::start::<Breakthrough>(Some(size), Some("course")).unwrap();
        let table = ProofTable::new(16);
        let mut lines = Vec::new();
        Openings {
            board: size,
            variant: "course",
            limits,
            table: &table,
            threads: 1,
            after: Vec::new(),
        }
        .walk(&root, plies, &mut |line| {
            lines.push(line);
            Ok(())
        })?;
        Ok(lines)
    }

    #[test]
    fn each_keeping_move_is_a_reply_whose_position_has_the_opposite_value() {
        let lines = walk("3x5", 1, &Limits::default()).unwrap();
        let (root, replies) = lines.split_first().unwrap();
        assert!(root.after.is_empty());
        assert!(!replies.is_empty());
        for reply in replies {
            assert_eq!(reply.after.len(), 1);
            let keeps = root.keeping.contains(&reply.after[0]);
            let value_kept = match root.value {
                Outcome::Win => reply.value == Outcome::Loss,
                Outcome::Draw => reply.value != Outcome::Win,
                Outcome::Loss => true,
            };
            assert_eq!(keeps, value_kept, "{reply:?} after {root:?}");
        }
    }

    #[test]
    fn a_position_not_solved_in_time_is_named() {
        let stopped = Arc::new(AtomicBool::new(true));
        let err = walk("5x5", 0, &Limits::default().with_stop(stopped)).unwrap_err();
        assert_eq!(
            err,
            "5x5: the start position was not solved within --time (or a line ran too deep)"
        );
    }
}
