//! Time management: how long a move may be searched, and when the answer must go out
//! whatever the search has.
//!
//! A GGP controller gives every move the same play clock, measured from when it sent the
//! message; time saved on one move is not banked for the next. So a search uses all of the
//! clock but a margin kept back for the reply's way back (and the search's own stop), and
//! the one waiting for it gives up a little after the search's deadline, never after the
//! clock itself.

use std::time::{Duration, Instant};

/// The deadlines of one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveTime {
    /// When the search must stop (its hard deadline).
    pub search_until: Instant,
    /// When whoever waits for the search answers without it.
    pub give_up_at: Instant,
}

/// Search time for a move of `clock`: the clock less `margin`, but never less than a
/// tenth of the clock (a margin as large as the clock would leave nothing).
pub fn search_time(clock: Duration, margin: Duration) -> Duration {
    clock.saturating_sub(margin).max(clock / 10)
}

/// The deadlines of a move whose clock of `clock` started at `received`.
pub fn move_time(received: Instant, clock: Duration, margin: Duration) -> MoveTime {
    let search_until = received + search_time(clock, margin);
    let give_up_at = (search_until + margin / 2)
        .min(received + clock)
        .max(search_until);
    MoveTime {
        search_until,
        give_up_at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_margin_is_kept_and_the_answer_goes_out_within_the_clock() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let t = move_time(t0, ms(1000), ms(100));
        assert_eq!(t.search_until, t0 + ms(900));
        assert_eq!(t.give_up_at, t0 + ms(950));
        // A margin larger than the clock still leaves a tenth of it to search, and the
        // answer is never due before the search ends.
        let t = move_time(t0, ms(1000), ms(5000));
        assert_eq!(t.search_until, t0 + ms(100));
        assert_eq!(t.give_up_at, t0 + ms(1000));
        let t = move_time(t0, ms(1000), ms(0));
        assert_eq!(
            (t.search_until, t.give_up_at),
            (t0 + ms(1000), t0 + ms(1000))
        );
    }
}
