//! The GDL reasoner's speed: random playouts of Breakthrough from the initial state, in the
//! course-style rules and in the project's own, on 5×5 and 8×8, stepping either with
//! `analyse` (terminal, legal moves and goals in one pass) or with separate `legal` and
//! `terminal` queries. Run with `cargo bench --bench reasoner`; one iteration is one whole
//! playout (its states are printed once per rules, to turn the time into states/s).

use criterion::{Criterion, criterion_group, criterion_main};
use ggp_player::games::breakthrough::gdl::{breakthrough_rules, course_style_rules};
use ggp_player::gdl::{Gdl, Term};
use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_xoshiro::Xoshiro256PlusPlus;

/// One random playout; the states visited.
fn playout(g: &Gdl, rng: &mut Xoshiro256PlusPlus, combined: bool) -> usize {
    let mut s = g.initial_state();
    let mut states = 0;
    loop {
        states += 1;
        let (terminal, legal) = if combined {
            let a = g.analyse(&s);
            (a.terminal, a.legal)
        } else {
            (g.is_terminal(&s), g.all_legal_moves(&s))
        };
        if terminal {
            return states;
        }
        let joint: Vec<Term> = legal
            .iter()
            .map(|ms| ms.choose(rng).expect("a live role has a move").clone())
            .collect();
        s = g.next_state(&s, &joint);
    }
}

fn reasoner(c: &mut Criterion) {
    for size in ["5x5", "8x8"] {
        let size = size.parse().expect("a board size");
        for (name, text) in [
            ("course-style", course_style_rules(size)),
            ("ours", breakthrough_rules(size)),
        ] {
            let g = Gdl::parse(&text).expect("the project's rules compile");
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
            let states: usize = (0..20).map(|_| playout(&g, &mut rng, true)).sum();
            println!(
                "{size} {name}: {:.1} states per playout",
                states as f64 / 20.0
            );
            for (how, combined) in [("analyse+next", true), ("legal+terminal+next", false)] {
                c.bench_function(&format!("playout {size} {name} {how}"), |b| {
                    b.iter(|| playout(&g, &mut rng, combined))
                });
            }
        }
    }
}

criterion_group!(benches, reasoner);
criterion_main!(benches);
