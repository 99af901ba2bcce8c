//! How much CPU time one play may take (`GAMES.md` §4.4, H-8).
//!
//! The course charges the process's CPU time, start-up included, so every figure here
//! is a mark on the process's own CPU clock, not a duration from now.

use std::time::Duration;

use super::protocol::Mode;

/// The share of a `SINGLE` budget the play may use (H-8: about 85–90%; going over loses
/// the point even within the grace period).
pub const SINGLE_SHARE: f64 = 0.85;
/// No `GAME` play takes more than this share of what is left above the reserve: a game
/// that runs on past every forecast then spends its time geometrically and keeps nine
/// tenths of it after each play (a quarter let one play take 29.9 s of 143.7 s).
const GAME_CAP_SHARE: f64 = 0.1;
/// A `GAME` play may run to this many times its share when an iteration is under way.
const GAME_STRETCH: f64 = 2.5;
/// Squares of way left a play gains on average (about 5.4 in games between our own
/// searches; a little less, to keep time for the end).
const GAIN_PER_PLAY: i32 = 5;
/// Plays that gain little: the last pieces finding the last holes.
const ENDGAME_PLAYS: i32 = 10;
/// Kept back in a `GAME` for every play likely left: what a play costs even without a
/// search (the process's start, reading the input, writing the files: 1–2 ms measured,
/// and the master's own shell if it starts agents through one: 1 ms and 2 ms measured),
/// with room to spare for a loaded machine.
const PLAY_FLOOR: Duration = Duration::from_millis(5);
/// Plays beyond the foreseen ones that the reserve also covers. A game that runs on
/// longer than foreseen lives on this reserve: against a random mover a game can take a
/// quarter more plays than foreseen, and with the reserve for the foreseen plays alone a
/// 5 s game ran out of time at its 126th play.
const SPARE_PLAYS: u32 = 30;
/// A side's plays in the longest game the reserve covers whatever the forecast: the
/// referee's cap of 1,000 plies (`--max-plies`), 500 plays a side, each at the
/// fallback's cost ([`PLAY_FLOOR`]).
pub const CAP_PLAYS: u32 = 500;
/// Kept back for writing the answer and exiting.
const EXIT_RESERVE: Duration = Duration::from_millis(1);
/// Nodes between two looks of the search at its stop flag (the search's own interval).
const NODES_PER_CHECK: f64 = 2048.0;
/// Nodes per CPU second assumed without a calibration: below what this engine does on
/// the 2-core machine it was written on (1.2–2.2 million in `bench`).
pub const DEFAULT_NODES_PER_SECOND: f64 = 500_000.0;

/// The most seconds an input's time counts for: the course's clocks are a few hundred
/// seconds at most, and a larger time (up to `1e308`) would overflow the clock's marks.
/// A play given more still answers, within the budget of this time.
pub const MAX_SECONDS: f64 = 3600.0;

/// The marks on the process's CPU clock for one play.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    /// No new iteration starts after this.
    pub soft: Duration,
    /// The search is stopped here.
    pub hard: Duration,
}

/// The plays a side with `way_left` squares still to go (beyond the 60 of a full camp)
/// likely has left.
pub fn plays_left(way_left: i32) -> i32 {
    way_left.max(0) / GAIN_PER_PLAY + ENDGAME_PLAYS
}

/// What a `GAME` keeps back after `played` plays of its side, with `plays` foreseen:
/// every play that may still come, at what a play without a search costs, so that the
/// time left never falls below what the rest of the game needs at that cost (up to
/// the 1,000-ply cap, and the foreseen plays and [`SPARE_PLAYS`] beyond it).
pub fn reserve(plays: u32, played: u32) -> Duration {
    PLAY_FLOOR * (plays + SPARE_PLAYS).max(CAP_PLAYS.saturating_sub(played))
}

/// The budget of a play given `seconds` as the input says in `mode`, when the process
/// has used `used` so far, the side has `way_left` to go, has made `played` plays of
/// this game before, and the search visits `nodes_per_second`. `None` when there is no
/// time to search at all (play at once).
pub fn budget(
    mode: Mode,
    seconds: f64,
    way_left: i32,
    played: u32,
    used: Duration,
    nodes_per_second: f64,
) -> Option<Budget> {
    // NaN (which the input refuses) would be no time at all.
    let total = Duration::try_from_secs_f64(seconds.clamp(0.0, MAX_SECONDS)).unwrap_or_default();
    let (cap, target) = match mode {
        Mode::Single => {
            let cap = total.mul_f64(SINGLE_SHARE);
            (cap, cap / 2)
        }
        Mode::Game => {
            let plays = plays_left(way_left) as u32;
            let spendable = total.saturating_sub(reserve(plays, played));
            let share = spendable / plays;
            let cap = share
                .mul_f64(GAME_STRETCH)
                .min(spendable.mul_f64(GAME_CAP_SHARE));
            (cap, share.min(cap / 2))
        }
    };
    // The search notices its flag up to one check interval late, and the watcher up to
    // a quarter of the time left late (never more than its longest nap).
    let latency = Duration::from_secs_f64(2.0 * NODES_PER_CHECK / nodes_per_second.max(1.0));
    let hard = cap.checked_sub(latency + EXIT_RESERVE)?;
    if hard <= used {
        return None;
    }
    let soft = (used + target).min(hard);
    Some(Budget { soft, hard })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn a_single_play_stays_within_its_share() {
        let b = budget(Mode::Single, 30.0, 450, CAP_PLAYS, MS(2), 1e6).unwrap();
        assert!(b.hard <= Duration::from_secs_f64(30.0 * SINGLE_SHARE));
        assert!(b.hard > Duration::from_secs(25));
        assert!(b.soft < b.hard && b.soft > MS(2));
    }

    #[test]
    fn a_game_spreads_the_time_over_the_plays_left() {
        let early = budget(Mode::Game, 300.0, 450, CAP_PLAYS, MS(2), 1e6).unwrap();
        let late = budget(Mode::Game, 300.0, 20, CAP_PLAYS, MS(2), 1e6).unwrap();
        assert!(early.hard < late.hard);
        assert!(early.hard <= Duration::from_secs(300) / plays_left(450) as u32 * 3);
        assert!(late.hard <= Duration::from_secs(75));
    }

    #[test]
    fn a_huge_time_counts_as_the_cap() {
        for seconds in [1e12, 1e19, 1e20, f64::MAX] {
            for mode in [Mode::Single, Mode::Game] {
                let b = budget(mode, seconds, 450, CAP_PLAYS, MS(2), 1e6).unwrap();
                let capped = budget(mode, MAX_SECONDS, 450, CAP_PLAYS, MS(2), 1e6);
                assert_eq!(Some(b), capped);
                assert!(b.hard <= Duration::from_secs_f64(MAX_SECONDS * SINGLE_SHARE));
            }
        }
        assert_eq!(
            budget(Mode::Single, f64::NAN, 450, CAP_PLAYS, MS(2), 1e6),
            None
        );
    }

    #[test]
    fn tiny_budgets_still_search_or_play_at_once() {
        let b = budget(Mode::Single, 0.01, 450, CAP_PLAYS, MS(1), 1e6).unwrap();
        assert!(b.hard < MS(9) && b.hard > MS(1));
        assert_eq!(
            budget(Mode::Single, 0.002, 450, CAP_PLAYS, MS(1), 1e6),
            None
        );
        assert_eq!(budget(Mode::Game, 0.0, 450, CAP_PLAYS, MS(1), 1e6), None);
    }

    #[test]
    fn the_reserve_covers_every_play_to_the_cap_at_the_fallback_s_cost() {
        // At the first play: 500 plays to the cap, 2.5 s, more than the 130 foreseen.
        assert_eq!(reserve(100, 0), Duration::from_millis(2500));
        assert_eq!(budget(Mode::Game, 2.4, 450, 0, MS(1), 1e6), None);
        assert!(budget(Mode::Game, 2.4, 450, 400, MS(1), 1e6).is_some());
        // Past the cap, the foreseen plays and the spare ones.
        assert_eq!(reserve(10, 600), PLAY_FLOOR * 40);
        // Whatever the forecast, a play leaves at least nine tenths of what is above
        // the reserve, so a long game's time left falls only geometrically to it.
        for played in [0, 100, 300, 499, 700] {
            for way in [0, 50, 450] {
                let total = Duration::from_secs(60);
                let b = budget(Mode::Game, 60.0, way, played, MS(0), 1e6).unwrap();
                let above = total - reserve(plays_left(way) as u32, played);
                assert!(
                    b.hard <= above.mul_f64(GAME_CAP_SHARE),
                    "{played} {way}: {b:?}"
                );
            }
        }
    }

    #[test]
    fn a_game_keeps_a_reserve_for_every_play_left() {
        // Past the cap's plays, 100 plays left and 30 spare: 0.65 s is kept back, and
        // below it nothing is searched.
        assert_eq!(plays_left(450), 100);
        assert_eq!(budget(Mode::Game, 0.64, 450, CAP_PLAYS, MS(1), 1e6), None);
        let b = budget(Mode::Game, 1.5, 450, CAP_PLAYS, MS(1), 1e6).unwrap();
        assert!(b.hard <= Duration::from_millis(20), "{b:?}");
        // Near the end, ten plays are always foreseen and 30 spare: 200 ms.
        assert_eq!(budget(Mode::Game, 0.2, 0, CAP_PLAYS, MS(1), 1e6), None);
        assert!(budget(Mode::Game, 0.3, 0, CAP_PLAYS, MS(1), 1e6).is_some());
    }
}
