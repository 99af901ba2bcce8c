//! The record of a finished two-player match: one line of a tournament's results file,
//! whether the match was refereed over GGP or played between in-process agents.

use serde::{Deserialize, Serialize};

use super::dialect::Dialect;
use super::play_clock::PlayClock;

/// Hears each move of a match as the referee records it: its index (from 0), the move
/// as the record writes it, and the microseconds it took. `match` prints it at once, so
/// that a long match shows its progress; a tournament hears nothing.
pub type OnMove<'a> = &'a (dyn Fn(usize, &str, u64) + Sync);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultKind {
    /// START was not answered `ready` in time.
    NotReady,
    /// No reply within the play clock plus the grace second.
    Late,
    /// The player could not be reached or the connection broke.
    Unreachable,
    /// The reply was not a move term.
    Garbage,
    /// A move term that is not legal for the player in this position.
    Illegal,
    /// The player not to move answered something other than `noop`.
    NotNoop,
    /// An in-process agent gave no move at all, or a course program no answer.
    NoMove,
    /// A course program used up its CPU time for the whole game.
    OutOfTime,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    /// Plies played before the faulty reply (0 for START).
    pub ply: u32,
    pub role: String,
    pub kind: FaultKind,
    pub detail: String,
}

/// The record of a finished match, one line of the results file. Its seats are named by
/// the game's own roles: `"roles": ["black", "white"], "players": {"black": "ours", ...}`
/// in Lines of Action, where Black moves first ([`Line`] is how it is written).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Line", into = "Line")]
pub struct MatchRecord {
    pub id: String,
    /// The condition: the board size as the game writes it, or the rules file's name.
    pub size: String,
    /// The rules' two roles, the one that moves first first.
    pub roles: [String; 2],
    /// The player of each role, in the order of [`MatchRecord::roles`].
    pub players: [String; 2],
    /// The controller imitated; absent for a match between in-process agents, which
    /// exchanges no messages.
    pub dialect: Option<Dialect>,
    /// Seconds given after START (0 in-process, where there is no START).
    pub start_clock: u64,
    /// Seconds per move.
    pub play_clock: PlayClock,
    /// Moves in play order, as the rules write them (`(move x1 y1 x2 y2)`), or in the
    /// game's notation in-process.
    pub moves: Vec<String>,
    pub faults: Vec<Fault>,
    /// Goal values in the order of the roles: 100/0, 0/100 or 50/50 in the games the
    /// engines play, any values 0-100 in a GDL game; the higher goal wins.
    pub goals: [u8; 2],
    /// Wall time of the whole match.
    pub duration_ms: u64,
    /// Time the player to move took for each move, in microseconds.
    pub move_us: Vec<u64>,
    /// Median time per ply spent by the referee itself (not waiting for players).
    pub referee_overhead_us: u64,
    /// Each role's CPU time for the whole game, used and left at the end, for a player
    /// charged one (a Halma course program).
    pub cpu: [Option<CpuTime>; 2],
    /// The machine that played the match, when a cluster of them did (`cluster/`).
    pub worker: Option<String>,
    /// Every goal value faulty rules gave each role at the end, when they gave one role
    /// several (`goals` holds the highest); `None` when each had one.
    pub goal_values: Option<[Vec<u32>; 2]>,
    /// How many of the first `moves` were the referee's random opening rather than the
    /// players' (their `move_us` are 0), when the match started from one.
    pub opening: Option<u32>,
}

/// A player's CPU time for the whole game at its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuTime {
    pub used_ms: u64,
    pub left_ms: u64,
}

/// Values given by role name, in the roles' order: a JSON object `{"black": .., "white": ..}`.
#[derive(Clone, Debug, PartialEq)]
pub struct Seats<T>(pub Vec<(String, T)>);

impl<T> Seats<T> {
    /// The value of each of `roles`, or the first role without one.
    fn take(self, roles: &[String; 2]) -> Result<[T; 2], String> {
        let mut by_role: Vec<Option<(String, T)>> = self.0.into_iter().map(Some).collect();
        let mut pick = |role: &String| {
            by_role
                .iter_mut()
                .find(|e| e.as_ref().is_some_and(|(r, _)| r == role))
                .and_then(Option::take)
                .map(|(_, v)| v)
                .ok_or_else(|| format!("no value for role {role:?}"))
        };
        Ok([pick(&roles[0])?, pick(&roles[1])?])
    }
}

impl<T: Serialize> Serialize for Seats<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (role, value) in &self.0 {
            map.serialize_entry(role, value)?;
        }
        map.end()
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Seats<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Entries<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Entries<T> {
            type Value = Seats<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object keyed by role names")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Seats<T>, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(Seats(entries))
            }
        }
        d.deserialize_map(Entries(std::marker::PhantomData))
    }
}

/// A results file's line as written. Records written before the seats were named by role
/// have `white` and `black` instead of `players`: the players of the first and the
/// second role, whatever the roles were called (and no `roles` before those were kept,
/// when they were `white` and `black`).
#[derive(Serialize, Deserialize)]
struct Line {
    id: String,
    size: String,
    #[serde(default)]
    roles: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    players: Option<Seats<String>>,
    #[serde(default, skip_serializing)]
    white: Option<String>,
    #[serde(default, skip_serializing)]
    black: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    dialect: Option<Dialect>,
    start_clock: u64,
    play_clock: PlayClock,
    moves: Vec<String>,
    faults: Vec<Fault>,
    goals: [u8; 2],
    duration_ms: u64,
    move_us: Vec<u64>,
    referee_overhead_us: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cpu: Option<Seats<CpuTime>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    worker: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    goal_values: Option<[Vec<u32>; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    opening: Option<u32>,
}

impl TryFrom<Line> for MatchRecord {
    type Error = String;
    fn try_from(line: Line) -> Result<MatchRecord, String> {
        let roles: [String; 2] = match <[String; 2]>::try_from(line.roles) {
            Ok(roles) => roles,
            Err(roles) if roles.is_empty() => ["white".into(), "black".into()],
            Err(roles) => return Err(format!("a match record has two roles, not {roles:?}")),
        };
        let players = match (line.players, line.white, line.black) {
            (Some(seats), _, _) => seats.take(&roles).map_err(|e| format!("players: {e}"))?,
            (None, Some(first), Some(second)) => [first, second],
            _ => return Err("a match record names its players (\"players\")".into()),
        };
        let mut cpu = [None; 2];
        for (role, time) in line.cpu.map_or_else(Vec::new, |c| c.0) {
            let seat = roles.iter().position(|r| *r == role);
            let seat = seat.ok_or_else(|| format!("cpu: {role:?} is not a role"))?;
            cpu[seat] = Some(time);
        }
        Ok(MatchRecord {
            id: line.id,
            size: line.size,
            roles,
            players,
            dialect: line.dialect,
            start_clock: line.start_clock,
            play_clock: line.play_clock,
            moves: line.moves,
            faults: line.faults,
            goals: line.goals,
            duration_ms: line.duration_ms,
            move_us: line.move_us,
            referee_overhead_us: line.referee_overhead_us,
            cpu,
            worker: line.worker,
            goal_values: line.goal_values,
            opening: line.opening,
        })
    }
}

impl From<MatchRecord> for Line {
    fn from(r: MatchRecord) -> Line {
        let by_role = |values: Vec<(&String, Option<_>)>| {
            let seats: Vec<_> = values
                .into_iter()
                .filter_map(|(role, v)| Some((role.clone(), v?)))
                .collect();
            (!seats.is_empty()).then_some(Seats(seats))
        };
        let [first, second] = r.players;
        Line {
            players: Some(Seats(vec![
                (r.roles[0].clone(), first),
                (r.roles[1].clone(), second),
            ])),
            cpu: by_role(r.roles.iter().zip(r.cpu).collect()),
            roles: r.roles.to_vec(),
            white: None,
            black: None,
            id: r.id,
            size: r.size,
            dialect: r.dialect,
            start_clock: r.start_clock,
            play_clock: r.play_clock,
            moves: r.moves,
            faults: r.faults,
            goals: r.goals,
            duration_ms: r.duration_ms,
            move_us: r.move_us,
            referee_overhead_us: r.referee_overhead_us,
            worker: r.worker,
            goal_values: r.goal_values,
            opening: r.opening,
        }
    }
}

impl MatchRecord {
    /// The seat (0 for the first role, 1 for the second) of the player called `name`.
    pub fn seat_of(&self, name: &str) -> Option<usize> {
        self.players.iter().position(|p| p == name)
    }

    /// The score (1, 0.5 or 0) of the player called `name`, if it played this match: a
    /// win when its role's goal is the higher, a draw when the goals are equal, whatever
    /// their values (a GDL game may end 50 to 100, a loss for the 50).
    pub fn score_of(&self, name: &str) -> Option<f64> {
        let seat = self.seat_of(name)?;
        Some(match self.goals[seat].cmp(&self.goals[1 - seat]) {
            std::cmp::Ordering::Greater => 1.0,
            std::cmp::Ordering::Equal => 0.5,
            std::cmp::Ordering::Less => 0.0,
        })
    }

    /// The score of `a` if this was a game between `a` and `b`.
    pub fn score_between(&self, a: &str, b: &str) -> Option<f64> {
        let mut pair = [a, b];
        pair.sort_unstable();
        let mut players = [self.players[0].as_str(), self.players[1].as_str()];
        players.sort_unstable();
        if pair == players {
            self.score_of(a)
        } else {
            None
        }
    }

    /// How many faults the player called `name` committed in this match.
    pub fn faults_of(&self, name: &str) -> usize {
        let Some(seat) = self.seat_of(name) else {
            return 0;
        };
        let role = &self.roles[seat];
        self.faults
            .iter()
            .filter(|f| f.role.eq_ignore_ascii_case(role))
            .count()
    }

    /// The two roles' names.
    pub fn role_names(&self) -> [&str; 2] {
        [&self.roles[0], &self.roles[1]]
    }

    /// `white wins`, `black wins` or `draw`, with the rules' names for the roles: the
    /// role with the higher goal wins.
    pub fn verdict(&self) -> String {
        let [first, second] = self.role_names();
        match self.goals[0].cmp(&self.goals[1]) {
            std::cmp::Ordering::Greater => format!("{first} wins"),
            std::cmp::Ordering::Less => format!("{second} wins"),
            std::cmp::Ordering::Equal => "draw".to_owned(),
        }
    }
}
