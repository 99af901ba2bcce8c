//! Rules with their symbols renamed, as ggp-base's scrambling does before sending them:
//! a player must find nothing in a name, so the differential checks and `gdl compare
//! --scramble` play games whose every symbol is meaningless.

use std::collections::{BTreeMap, BTreeSet};

use rand::RngExt;

use crate::rng::{Rng, seeded};
use crate::sexpr::Sexpr;

/// The GDL keywords, which scrambling leaves alone.
const KEYWORDS: [&str; 14] = [
    "role", "init", "true", "next", "legal", "does", "goal", "terminal", "distinct", "not", "or",
    "base", "input", "<=",
];

/// `rules` with every symbol but the keywords, numbers and variables renamed
/// consistently (case-insensitively) to a random lower-case word drawn from `seed`; with
/// the renaming (old name in lower case to new name).
pub fn scramble(rules: &[Sexpr], seed: u64) -> (Vec<Sexpr>, BTreeMap<String, String>) {
    let mut renamer = Renamer {
        rng: seeded(Some(seed)),
        names: BTreeMap::new(),
        used: BTreeSet::new(),
    };
    let out = rules.iter().map(|r| renamer.walk(r)).collect();
    (out, renamer.names)
}

struct Renamer {
    rng: Rng,
    names: BTreeMap<String, String>,
    used: BTreeSet<String>,
}

impl Renamer {
    fn walk(&mut self, e: &Sexpr) -> Sexpr {
        match e {
            Sexpr::List(items) => Sexpr::list(items.iter().map(|i| self.walk(i)).collect()),
            Sexpr::Atom(a) => {
                let key = a.to_ascii_lowercase();
                let keep = KEYWORDS.contains(&key.as_str())
                    || a.starts_with('?')
                    || a.bytes().all(|b| b.is_ascii_digit());
                if keep {
                    return e.clone();
                }
                if let Some(name) = self.names.get(&key) {
                    return Sexpr::atom(name.clone());
                }
                let name = loop {
                    let len = self.rng.random_range(5..11);
                    let word: String = (0..len)
                        .map(|_| (b'a' + self.rng.random_range(0..26u8)) as char)
                        .collect();
                    if !KEYWORDS.contains(&word.as_str()) && self.used.insert(word.clone()) {
                        break word;
                    }
                };
                self.names.insert(key, name.clone());
                Sexpr::atom(name)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_are_renamed_consistently_and_keywords_kept() {
        let rules = Sexpr::parse_all(
            "(role White) (<= (legal white (move ?x 3)) (true (cell ?x)) (not (Cell 3)))",
        )
        .unwrap();
        let (out, names) = scramble(&rules, 7);
        let text: Vec<String> = out.iter().map(Sexpr::to_string).collect();
        let text = text.join(" ");
        let white = &names["white"];
        let cell = &names["cell"];
        assert_eq!(names.len(), 3, "{names:?}");
        assert_eq!(text.matches(white.as_str()).count(), 2, "{text}");
        assert_eq!(text.matches(cell.as_str()).count(), 2, "{text}");
        for kept in ["role", "<=", "legal", "true", "not", "?x", " 3"] {
            assert!(text.contains(kept), "{kept} in {text}");
        }
        assert_eq!(scramble(&rules, 7).0, out);
        assert_ne!(scramble(&rules, 8).0, out);
    }
}
