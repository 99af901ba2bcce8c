//! One match refereed from start to end and printed as it goes (what `ggp-player match`
//! does): between GGP players, started first when given as commands and stopped after,
//! on a registered game's rules or any GDL file; or on a game itself between
//! in-process agents and course programs.

use super::dialect::Dialect;
use super::general::{GdlMatchSpec, play_gdl_match_telling};
use super::ggp_match::{GgpGame, MatchSpec};
use super::native::{self, Contestant};
use super::play_clock::PlayClock;
use super::players::{PlayerSpec, RunningPlayer};
use super::report::move_line;
use crate::games;
use crate::spec::{self, GameSpec, Tool};

/// The clocks and manners of a match between GGP players.
#[derive(Clone, Copy, Debug)]
pub struct GgpTerms {
    /// Seconds after START.
    pub start_clock: u64,
    /// Seconds per move (whole seconds: START carries no fractions).
    pub play_clock: u64,
    pub dialect: Dialect,
}

/// The play clock of a match with GGP players, whose START carries whole seconds.
pub fn ggp_clock(clock: PlayClock) -> Result<u64, String> {
    clock.whole_secs().ok_or_else(|| {
        format!(
            "--playclock {clock}: GGP players take whole seconds (fractions only between in-process agents)"
        )
    })
}

/// `white` and `black` in the order of `roles` (the first role first): the players of
/// the roles called so, whichever of them moves first.
pub fn by_role<T>(roles: &[impl AsRef<str>], white: T, black: T) -> Result<[T; 2], String> {
    let names: Vec<&str> = roles.iter().map(AsRef::as_ref).collect();
    match names[..] {
        ["white", "black"] => Ok([white, black]),
        ["black", "white"] => Ok([black, white]),
        _ => Err(format!(
            "the roles are {}, not white and black: give one --player per role, in that order",
            names.join(", ")
        )),
    }
}

/// A match id that no earlier run used.
fn match_id(what: &str) -> Result<String, String> {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|e| e.to_string())?
        .as_millis();
    Ok(format!("match-{what}-{stamp}"))
}

/// The registered game called `name` over GGP, on `size` (the game's default if none).
pub fn ggp_game(name: &str, size: Option<&str>, variant: Option<&str>) -> Result<GgpGame, String> {
    struct Of<'a>(Option<&'a str>, Option<&'a str>);
    impl Tool for Of<'_> {
        type Output = Result<GgpGame, String>;
        fn run<S: GameSpec>(self) -> Result<GgpGame, String> {
            GgpGame::of::<S>(self.0.unwrap_or(S::DEFAULT_SIZE), self.1)
        }
    }
    games::dispatch(name, Of(size, variant)).map_err(|e| e.to_string())?
}

/// Referees one match of the GDL game `game` (any number of roles, every move checked
/// by the reasoner) between `specs`, one per role, giving `print` the header and then
/// the match step by step.
pub async fn gdl_match(
    game: &GgpGame,
    specs: &[PlayerSpec],
    terms: GgpTerms,
    print: &(dyn Fn(String) + Sync),
) -> Result<(), String> {
    let gdl = game
        .reasoner()
        .ok_or_else(|| format!("{} is not refereed by the reasoner", game.condition))?
        .clone();
    let players = RunningPlayer::start_all(specs).await?;
    let addrs: Vec<String> = players.iter().map(|p| p.addr.clone()).collect();
    let spec = GdlMatchSpec {
        id: match_id(&game.condition)?,
        game: game.condition.clone(),
        rules: game.rules.clone(),
        gdl,
        names: addrs.clone(),
        addrs,
        start_clock: terms.start_clock,
        play_clock: terms.play_clock,
        dialect: terms.dialect,
    };
    print(spec.header());
    let on_move = |i: usize, m: &str, us: u64| print(move_line(None, i, m, us));
    let record = play_gdl_match_telling(&spec, &on_move).await;
    for p in players {
        p.stop().await;
    }
    for line in record.view().after_moves() {
        print(line);
    }
    Ok(())
}

/// Referees one match of `game` between the GGP players `specs` (of the roles called
/// white and black), giving `print` the header and then the match move by move.
pub async fn ggp_match(
    game: &GgpGame,
    [white, black]: [PlayerSpec; 2],
    terms: GgpTerms,
    print: &(dyn Fn(String) + Sync),
) -> Result<(), String> {
    let specs = by_role(&game.roles(), white, black)?;
    let players = RunningPlayer::start_all(&specs).await?;
    let addrs = [players[0].addr.clone(), players[1].addr.clone()];
    let spec = MatchSpec {
        id: match_id(&game.condition)?,
        names: addrs.clone(),
        addrs,
        start_clock: terms.start_clock,
        play_clock: terms.play_clock,
        dialect: terms.dialect,
    };
    print(spec.header(game));
    let roles = game.roles();
    let sides = [roles[0].as_str(), roles[1].as_str()];
    let on_move = |i: usize, m: &str, us: u64| print(move_line(Some(sides), i, m, us));
    let record = game.play_telling(&spec, &on_move).await;
    for p in players {
        p.stop().await;
    }
    for line in record.view().after_moves() {
        print(line);
    }
    Ok(())
}

/// A match on a game itself between in-process agents or course programs.
pub struct NativeMatch {
    /// The players of the roles called white and black, whichever moves first.
    pub players: [Contestant; 2],
    pub size: Option<String>,
    pub variant: Option<String>,
    pub play_clock: PlayClock,
    pub max_plies: u32,
}

impl NativeMatch {
    /// Plays the match on game `S`, giving `print` the header and then the match move by
    /// move.
    pub fn run<S: GameSpec>(&self, print: &(dyn Fn(String) + Sync)) -> Result<(), String> {
        let start = spec::start::<S>(self.size.as_deref(), self.variant.as_deref())?;
        let clock = self.play_clock.duration();
        let [white, black] = &self.players;
        let players = by_role(&S::SIDES, white.clone(), black.clone())?;
        let [mut first, mut second] = players.each_ref().map(|p| native::mover::<S>(p, clock));
        let size = self.size.as_deref().unwrap_or(S::DEFAULT_SIZE);
        print(native::header(
            S::NAME,
            size,
            S::SIDES,
            &players,
            self.play_clock,
        ));
        let (first, second) = (
            first.as_deref_mut().map_err(|e| e.clone())?,
            second.as_deref_mut().map_err(|e| e.clone())?,
        );
        let on_move = |i: usize, m: &str, us: u64| print(move_line(Some(S::SIDES), i, m, us));
        let max_plies = self.max_plies;
        let record = native::play_telling(&start, &[], [first, second], clock, max_plies, &on_move);
        for line in record.view(S::SIDES, self.max_plies).after_moves() {
            print(line);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::walk::spec::WalkSpec;

    fn agent(s: &str) -> Contestant {
        Contestant::Agent(native::parse_agent(s).unwrap().unwrap())
    }

    fn native_match(white: Contestant, max_plies: u32) -> Result<Vec<String>, String> {
        let game = NativeMatch {
            players: [white, agent("agent:random")],
            size: Some("40".into()),
            variant: None,
            play_clock: PlayClock::parse("0.05").unwrap(),
            max_plies,
        };
        let lines = std::sync::Mutex::new(Vec::new());
        game.run::<WalkSpec>(&|l| lines.lock().unwrap().push(l))?;
        Ok(lines.into_inner().unwrap())
    }

    #[test]
    fn a_native_match_prints_its_header_each_move_and_the_result() {
        let lines = native_match(agent("agent:greedy"), 6).unwrap();
        assert_eq!(
            lines[0],
            "walk match on 40: white greedy(default), black random; play clock 0.05 s, in-process"
        );
        let moves = lines
            .iter()
            .filter(|l| l.contains(". white ") || l.contains(". black "));
        // Told as they were made: numbered in order, between the header and the result.
        for (i, line) in lines[1..lines.len() - 1].iter().enumerate() {
            let side = ["white", "black"][i % 2];
            assert!(
                line.starts_with(&format!("{:>4}. {side} ", i + 1)),
                "{lines:?}"
            );
        }
        let result = lines.last().unwrap();
        assert!(result.starts_with("result: "), "{lines:?}");
        assert!(
            result.contains(&format!("after {} moves", moves.count())),
            "{lines:?}"
        );
    }

    #[test]
    fn a_contestant_that_cannot_play_the_game_is_an_error() {
        let err = native_match(Contestant::Program("true".into()), 6).unwrap_err();
        assert!(err.contains("walk has no course program protocol"), "{err}");
    }

    #[test]
    fn ggp_players_get_whole_seconds_only() {
        assert_eq!(ggp_clock(PlayClock::parse("2").unwrap()), Ok(2));
        assert_eq!(
            ggp_clock(PlayClock::parse("0.5").unwrap()).unwrap_err(),
            "--playclock 0.5: GGP players take whole seconds (fractions only between in-process agents)"
        );
    }

    #[test]
    fn an_unknown_game_is_named() {
        let Err(err) = ggp_game("chess", None, None) else {
            panic!("chess is no registered game");
        };
        assert!(err.starts_with("no game is called \"chess\""), "{err}");
    }
}
