//! Playouts per second: the figure `gdl bench` compares between the two models, and the
//! race that keeps the faster of them for a match.

use std::fmt;
use std::time::{Duration, Instant};

use super::{Gdl, MAX_COMPARED_STEPS, PlayoutLimit};
use crate::rng::{Rng, seeded};

/// Random playouts from the initial state for `time`: how many ended, and in how long.
pub fn playouts_in(gdl: &Gdl, time: Duration, rng: &mut Rng) -> (u64, Duration) {
    let (playouts, _, took) = playing_for(gdl, time, rng);
    (playouts, took)
}

/// Random playouts from the initial state for `time`: how many ended, their steps (the
/// last, cut by the clock, counted as far as it went), and how long they took.
pub(super) fn playing_for(gdl: &Gdl, time: Duration, rng: &mut Rng) -> (u64, u64, Duration) {
    let start = Instant::now();
    let deadline = start + time;
    let initial = gdl.initial_state();
    let (mut done, mut steps) = (0u64, 0u64);
    // Both models ask once before every step, the one that finds the end included.
    let mut stop = || {
        steps += 1;
        Instant::now() >= deadline
    };
    while gdl
        .playout(
            &initial,
            rng,
            PlayoutLimit {
                max_steps: MAX_COMPARED_STEPS,
                stop: &mut stop,
                pick: None,
            },
        )
        .is_some()
    {
        done += 1;
    }
    (done, steps, start.elapsed())
}

/// The longest a match's start spends on [`Race`].
pub const RACE_TIME: Duration = Duration::from_millis(400);

/// The shortest race worth running: below it, a step or two decides.
const MIN_RACE_TIME: Duration = Duration::from_millis(40);

/// How many times as fast as the network the reasoner must be to replace it. A race this
/// short is noisy, and the network is usually many times faster: of ggp-base's rule
/// sheets, the three where it is not are slower by 2.4× or more (random playouts' steps),
/// the closest others faster by 1.2–1.3×.
const CLEARLY_FASTER: f64 = 1.5;

/// The two models of a game raced: random playouts from the initial state, in steps a
/// second (a step being one state's legal moves and successor), each model measured in
/// two alternate quarters of the time so that a pause of the machine is shared.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Race {
    pub reasoner: f64,
    pub network: f64,
}

impl Race {
    /// Races `gdl`'s network (which it must have) against its reasoner for `time`. The
    /// same seed for both, so that where they list moves alike they play the same games.
    fn run(gdl: &Gdl, time: Duration) -> Race {
        let reasoner_only = gdl.reasoner_only();
        let mut rates = [(0u64, Duration::ZERO); 2];
        for _ in 0..2 {
            for (model, rate) in [gdl, &reasoner_only].into_iter().zip(&mut rates) {
                let (_, steps, took) = playing_for(model, time / 4, &mut seeded(Some(1)));
                rate.0 += steps;
                rate.1 += took;
            }
        }
        let per_second = |(steps, took): (u64, Duration)| steps as f64 / took.as_secs_f64();
        Race {
            network: per_second(rates[0]),
            reasoner: per_second(rates[1]),
        }
    }

    /// Whether the reasoner is clearly the faster, by [`CLEARLY_FASTER`].
    pub fn reasoner_wins(&self) -> bool {
        self.reasoner >= CLEARLY_FASTER * self.network && self.reasoner > 0.0
    }

    /// Why the network lost, as [`Gdl::model_description`] takes it.
    pub fn why_not_the_network(&self) -> String {
        format!("it was slower than the reasoner: {self}")
    }
}

impl fmt::Display for Race {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "random playouts made {:.0} steps a second by the network, {:.0} by the reasoner",
            self.network, self.reasoner
        )
    }
}

impl Gdl {
    /// Races the network, if there is one, against the reasoner for `time`, and gives
    /// the network up if the reasoner is clearly faster (the search spends its time in
    /// such steps, in playouts and in the tree alike). `None` without a network, or
    /// with too little time for a race.
    pub fn keep_the_faster(&mut self, time: Duration) -> Option<Race> {
        if self.propnet.is_none() || time < MIN_RACE_TIME {
            return None;
        }
        let race = Race::run(self, time);
        if race.reasoner_wins() {
            self.propnet = None;
        }
        Some(race)
    }
}
