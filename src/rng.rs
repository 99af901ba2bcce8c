//! Random numbers for agents, searches and tools: reproducible when seeded (tests,
//! `--seed`), drawn from the operating system otherwise.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

pub type Rng = Xoshiro256PlusPlus;

/// A generator seeded with `seed`, or from the operating system if `None`.
pub fn seeded(seed: Option<u64>) -> Rng {
    match seed {
        Some(seed) => Rng::seed_from_u64(seed),
        None => rand::make_rng(),
    }
}
