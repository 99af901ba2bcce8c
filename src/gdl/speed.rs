//! Playouts per second: the figure `gdl bench` compares between the two models.

use std::time::{Duration, Instant};

use super::{Gdl, MAX_COMPARED_STEPS, PlayoutLimit};
use crate::rng::Rng;

/// Random playouts from the initial state for `time`: how many ended, and in how long.
pub fn playouts_in(gdl: &Gdl, time: Duration, rng: &mut Rng) -> (u64, Duration) {
    let start = Instant::now();
    let deadline = start + time;
    let initial = gdl.initial_state();
    let mut done = 0u64;
    let mut stop = || Instant::now() >= deadline;
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
    (done, start.elapsed())
}
