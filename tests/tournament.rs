//! Tournaments: results written as each match ends, refusal to mix runs, resuming
//! exactly the missing games, an SPRT that stops the run once decided, and tournaments
//! of in-process agents in any game.

use std::path::PathBuf;

use ggp_player::games::ataxx::spec::AtaxxSpec as Ataxx;
use ggp_player::games::breakthrough::spec::Breakthrough;
use ggp_player::games::loa::spec::Loa8 as Loa;
use ggp_player::games::walk::spec::WalkSpec;
use ggp_player::referee::dialect::Dialect;
use ggp_player::referee::play_clock::PlayClock;
use ggp_player::referee::players::PlayerSpec;
use ggp_player::referee::record::MatchRecord;
use ggp_player::referee::split;
use ggp_player::referee::stats::{Sprt, Verdict};
use ggp_player::referee::summary;
use ggp_player::referee::tournament::{
    self, Arena, Entrant, Format, Openings, TournamentConfig, TournamentError,
};

fn random_player(name: &str, seed: u64) -> Entrant {
    Entrant {
        name: name.into(),
        spec: PlayerSpec::Command(format!(
            "{} serve --agent random --seed {seed}",
            env!("CARGO_BIN_EXE_ggp-player")
        )),
    }
}

fn config(results: PathBuf, games: u32) -> TournamentConfig {
    TournamentConfig {
        entrants: vec![random_player("a", 1), random_player("b", 2)],
        format: Format::RoundRobin,
        play_clocks: vec![PlayClock::from_secs(1)],
        start_clock: 1,
        games,
        concurrency: 2,
        dialect: Dialect::Dresden,
        results,
        resume: false,
        sprt: None,
        progress: false,
        openings: None,
    }
}

/// Breakthrough on 3x5 and 4x5 between GGP players.
fn sizes() -> Arena {
    Arena::ggp::<Breakthrough>(&["3x5".into(), "4x5".into()]).unwrap()
}

fn temp_file(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("ggp-player-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_are_saved_and_a_resumed_run_plays_only_the_missing_games() {
    let path = temp_file("resume.jsonl");
    let first = tournament::run(&config(path.clone(), 2), &sizes())
        .await
        .unwrap();
    assert_eq!(first.records.len(), 4, "2 games x 2 sizes");
    assert_eq!(tournament::read_results(&path).unwrap(), first.records);
    // Both colours for every size.
    for size in ["3x5", "4x5"] {
        let whites: Vec<&str> = first
            .records
            .iter()
            .filter(|r| r.size == size)
            .map(|r| r.players[0].as_str())
            .collect();
        assert!(
            whites.contains(&"a") && whites.contains(&"b"),
            "{size}: {whites:?}"
        );
    }

    // The same file again without --resume: refused, nothing written.
    let again = tournament::run(&config(path.clone(), 2), &sizes()).await;
    assert!(matches!(again, Err(TournamentError::Config(ref m)) if m.contains("--resume")));
    assert_eq!(tournament::read_results(&path).unwrap().len(), 4);

    // Resumed with more games: only the 4 missing ones are played.
    let mut more = config(path.clone(), 4);
    more.resume = true;
    let resumed = tournament::run(&more, &sizes()).await.unwrap();
    let saved = tournament::read_results(&path).unwrap();
    assert_eq!(saved.len(), 8);
    assert_eq!(resumed.records, saved);
    assert_eq!(&saved[..4], &first.records[..]);
    let ids: std::collections::HashSet<&str> = saved.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids.len(), 8, "every match has its own id");
    let rows = tournament::table(&saved, &["a".into(), "b".into()]);
    assert_eq!(rows[0].condition, "all");
    assert_eq!(rows[0].wdl.games(), 8);
    assert_eq!(rows.len(), 3, "all, then each size");

    // Resumed with another player in b's place: refused, as its table would mix two
    // tournaments; nothing written.
    let mut other = config(path.clone(), 4);
    other.resume = true;
    other.entrants[1] = random_player("c", 3);
    let mixed = tournament::run(&other, &sizes()).await;
    assert!(
        matches!(mixed, Err(TournamentError::Config(ref m)) if m.contains("holds games of b, who is not in this tournament")),
        "{:?}",
        mixed.err()
    );
    assert_eq!(tournament::read_results(&path).unwrap().len(), 8);

    // A results file that is not JSON lines is reported, not overwritten.
    std::fs::write(&path, "not json\n").unwrap();
    let mut broken = config(path.clone(), 1);
    broken.resume = true;
    let refused = tournament::run(&broken, &sizes()).await.err().unwrap();
    assert!(matches!(refused, TournamentError::Results { .. }));
    // Named once, with the line.
    let message = refused.to_string();
    let name = path.display().to_string();
    assert_eq!(message.matches(&name).count(), 1, "{message}");
    assert!(
        message.starts_with(&format!("results file {name} line 1: ")),
        "{message}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "not json\n");
    let _ = std::fs::remove_file(&path);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_sprt_stops_the_tournament_once_decided() {
    let path = temp_file("sprt.jsonl");
    let mut c = config(path.clone(), 200);
    c.concurrency = 1;
    // Wide error rates: bounds of about +-0.2, crossed after a handful of games.
    c.sprt = Some(Sprt {
        elo0: -200.0,
        elo1: 200.0,
        alpha: 0.45,
        beta: 0.45,
    });
    let outcome = tournament::run(&c, &sizes()).await.unwrap();
    let verdict = outcome.verdict.unwrap();
    assert_ne!(verdict, Verdict::Continue);
    assert!(
        outcome.records.len() < 400,
        "stopped early after {} games",
        outcome.records.len()
    );
    assert_eq!(
        tournament::read_results(&path).unwrap().len(),
        outcome.records.len()
    );
    let _ = std::fs::remove_file(&path);
}

#[tokio::test]
async fn bad_configurations_are_refused() {
    let mut c = config(temp_file("bad.jsonl"), 2);
    c.entrants.truncate(1);
    assert!(matches!(
        tournament::run(&c, &sizes()).await,
        Err(TournamentError::Config(_))
    ));
    let mut c = config(temp_file("bad.jsonl"), 2);
    c.entrants[1].name = "a".into();
    assert!(
        matches!(tournament::run(&c, &sizes()).await, Err(TournamentError::Config(m)) if m.contains("two players are named a"))
    );
    assert!(Entrant::parse("no-equals-sign").is_err());
    assert!(Entrant::parse("two words=http://127.0.0.1:1").is_err());
}

fn agent(name: &str, spec: &str) -> Entrant {
    Entrant::parse(&format!("{name}={spec}")).unwrap()
}

fn agents_config(results: PathBuf, games: u32) -> TournamentConfig {
    TournamentConfig {
        entrants: vec![agent("a", "agent:alphabeta"), agent("b", "agent:random")],
        // In-process agents take fractions of a second.
        play_clocks: vec![PlayClock::parse("0.25").unwrap()],
        ..config(results, games)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_process_agents_play_a_tournament_of_the_toy_game() {
    let path = temp_file("walk.jsonl");
    let arena = Arena::native::<WalkSpec>(&["40".into(), "star300".into()], 1000).unwrap();
    let outcome = tournament::run(&agents_config(path.clone(), 6), &arena)
        .await
        .unwrap();
    assert_eq!(outcome.records.len(), 12, "6 games x 2 sizes");
    assert_eq!(tournament::read_results(&path).unwrap(), outcome.records);
    for r in &outcome.records {
        assert!(r.faults.is_empty(), "{r:?}");
        assert_eq!((r.dialect, r.start_clock), (None, 0));
        assert_eq!(r.play_clock.to_string(), "0.25");
        assert_eq!(r.roles, ["white", "black"]);
        assert_eq!(r.moves.len(), r.move_us.len());
        assert!(
            r.moves.iter().all(|m| m.contains('-') || m == "pass"),
            "{r:?}"
        );
    }
    let score = |name| -> f64 {
        outcome
            .records
            .iter()
            .filter_map(|r| r.score_of(name))
            .sum()
    };
    assert!(
        score("a") > score("b"),
        "the searcher beats the random mover"
    );
    let rows = tournament::table(&outcome.records, &["a".into(), "b".into()]);
    let conditions: Vec<&str> = rows.iter().map(|r| r.condition.as_str()).collect();
    assert_eq!(conditions, ["all", "40 0.25s", "star300 0.25s"]);

    // Resumed with more games: only the missing ones are played, in-process too.
    let mut more = agents_config(path.clone(), 7);
    more.resume = true;
    let resumed = tournament::run(&more, &arena).await.unwrap();
    assert_eq!(resumed.records.len(), 14);
    assert_eq!(tournament::read_results(&path).unwrap().len(), 14);
    let _ = std::fs::remove_file(&path);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_process_agents_play_a_breakthrough_tournament() {
    let path = temp_file("bt-native.jsonl");
    let arena = Arena::native::<Breakthrough>(&["3x5".into(), "4x5".into()], 1000).unwrap();
    // A clock with room for a loaded machine: the searcher proves these boards in a
    // fraction of it and then plays at once.
    let config = TournamentConfig {
        play_clocks: vec![PlayClock::parse("2").unwrap()],
        ..agents_config(path.clone(), 2)
    };
    let outcome = tournament::run(&config, &arena).await.unwrap();
    assert_eq!(outcome.records.len(), 4, "2 games x 2 sizes");
    for r in &outcome.records {
        assert!(r.faults.is_empty(), "{r:?}");
        assert!(r.moves[0].starts_with("(move "), "{r:?}");
        // The searcher never loses: these boards are draws it can hold.
        assert!(r.score_of("a").unwrap() >= 0.5, "{r:?}");
    }
    let _ = std::fs::remove_file(&path);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_openings_start_each_pair_of_games_apart_and_its_two_games_alike() {
    let arena = Arena::native::<Ataxx>(&["7x7".into()], 1000).unwrap();
    let quick = |path: PathBuf, openings: Option<Openings>| TournamentConfig {
        entrants: vec![
            agent("a", "agent:minimax:1:material"),
            agent("b", "agent:minimax:1:positional"),
        ],
        play_clocks: vec![PlayClock::parse("1").unwrap()],
        concurrency: 1,
        openings,
        ..config(path, 4)
    };
    let path = temp_file("openings.jsonl");
    let plies = 3;
    let openings = Some(Openings { plies, seed: 7 });
    let records = tournament::run(&quick(path.clone(), openings), &arena)
        .await
        .unwrap()
        .records;
    assert_eq!(tournament::read_results(&path).unwrap(), records);
    let opening = |r: &MatchRecord| r.moves[..plies as usize].to_vec();
    for r in &records {
        assert_eq!(r.opening, Some(plies), "{r:?}");
        assert_eq!(r.move_us[..plies as usize], [0; 3], "{r:?}");
        assert!(r.faults.is_empty(), "{r:?}");
    }
    assert_eq!(records[0].players, ["a", "b"]);
    assert_eq!(records[1].players, ["b", "a"]);
    assert_eq!(
        opening(&records[0]),
        opening(&records[1]),
        "a pair shares its opening"
    );
    assert_eq!(opening(&records[2]), opening(&records[3]));
    assert_ne!(
        opening(&records[0]),
        opening(&records[2]),
        "pairs start apart"
    );
    assert_ne!(records[0].moves, records[2].moves);
    let _ = std::fs::remove_file(&path);
}

#[tokio::test]
async fn openings_are_refused_where_a_player_starts_from_the_initial_state() {
    let openings = Some(Openings { plies: 2, seed: 1 });
    let ggp = TournamentConfig {
        openings,
        ..config(temp_file("ggp-openings.jsonl"), 1)
    };
    let err = tournament::run(&ggp, &sizes()).await.err().unwrap();
    assert!(err.to_string().contains("--openings: GGP players"), "{err}");
    // The loa program keeps its own game from the start position.
    let loa = Arena::native::<Loa>(&["8x8".into()], 1000).unwrap();
    let programs = TournamentConfig {
        entrants: vec![agent("a", "program:loa"), agent("b", "agent:random")],
        play_clocks: vec![PlayClock::parse("1").unwrap()],
        openings,
        ..config(temp_file("loa-openings.jsonl"), 1)
    };
    let err = tournament::run(&programs, &loa).await.err().unwrap();
    assert!(err.to_string().contains("keeps its own game"), "{err}");
}

#[tokio::test]
async fn ggp_players_are_refused_a_fraction_of_a_second() {
    let mut config = config(temp_file("fraction.jsonl"), 1);
    config.play_clocks = vec![PlayClock::parse("0.5").unwrap()];
    let err = tournament::run(&config, &sizes()).await.err().unwrap();
    assert!(err.to_string().contains("whole seconds"), "{err}");
}

#[test]
fn agents_and_ggp_players_do_not_meet_and_games_without_gdl_need_agents() {
    let mixed = [agent("a", "agent:random"), random_player("b", 1)];
    let err = Arena::choose("breakthrough", None, &[], 1000, &mixed)
        .err()
        .unwrap();
    assert!(err.contains("cannot meet"), "{err}");
    let ggp = [random_player("a", 1), random_player("b", 2)];
    let err = Arena::choose("walk", None, &[], 1000, &ggp).err().unwrap();
    assert!(err.starts_with("walk has no GGP rules"), "{err}");
    let agents = [agent("a", "agent:random"), agent("b", "agent:random")];
    let err = Arena::choose("walk", None, &["8x8".into()], 1000, &agents)
        .err()
        .unwrap();
    assert!(err.contains("is not a Walk board"), "{err}");
    // The game's own default sizes: 5x5 for a Breakthrough tournament, 40 for Walk.
    let sizes = |game| {
        Arena::choose(game, None, &[], 1000, &agents)
            .unwrap()
            .conditions()
    };
    assert_eq!(sizes("breakthrough"), ["5x5"]);
    assert_eq!(sizes("walk"), ["40"]);
    assert_eq!(
        Arena::choose("breakthrough", None, &["6x6".into()], 1000, &ggp)
            .unwrap()
            .conditions(),
        ["6x6"]
    );
}

#[test]
fn results_written_before_seats_were_named_by_role_still_read() {
    // A line of a results file written by the referee before it named no game.
    let line = r#"{"id":"ref-1795502875270-0","size":"5x5","white":"a","black":"b","dialect":"ggp-base","start_clock":5,"play_clock":1,"moves":["(move 1 2 1 3)","(move 3 4 3 3)","(move 1 3 2 4)","(move 4 4 4 3)","(move 2 2 2 3)","(move 5 4 5 3)","(move 4 2 3 3)","(move 4 3 5 2)","(move 2 4 1 5)"],"faults":[],"goals":[100,0],"duration_ms":3,"move_us":[181,192,133,186,139,139,118,180,122],"referee_overhead_us":18,"roles":["white","black"]}"#;
    // And one from before records named the roles.
    let older = r#"{"id":"x","size":"8x8","white":"b","black":"a","dialect":"dresden","start_clock":5,"play_clock":1,"moves":[],"faults":[{"ply":3,"role":"white","kind":"late","detail":"slow"}],"goals":[50,50],"duration_ms":3,"move_us":[],"referee_overhead_us":18}"#;
    let path = temp_file("old.jsonl");
    std::fs::write(&path, format!("{line}\n{older}\n")).unwrap();
    let records = tournament::read_results(&path).unwrap();
    assert_eq!(records.len(), 2);
    assert_eq!(records[0].dialect, Some(Dialect::GgpBase));
    assert_eq!(records[0].players, ["a", "b"]);
    assert_eq!(records[1].roles, ["white", "black"]);
    // Written back with the seats named by role, which reads back the same.
    let written = serde_json::to_string(&records[0]).unwrap();
    assert!(
        written.contains(r#""roles":["white","black"],"players":{"white":"a","black":"b"}"#),
        "{written}"
    );
    let fields: serde_json::Value = serde_json::from_str(&written).unwrap();
    assert!(fields.get("white").is_none(), "{written}");
    let back: MatchRecord = serde_json::from_str(&written).unwrap();
    assert_eq!(back, records[0]);
    assert_eq!(records[1].faults_of("b"), 1);
    assert_eq!(records[1].verdict(), "draw");
    // The table gives each player's faults, the opponent's too: b's late move shows in
    // the row of a against b.
    let names = ["a".to_owned(), "b".to_owned()];
    let rows = tournament::table(&records, &names);
    assert_eq!(rows[0].player, "a");
    assert_eq!(rows[0].faults, [0, 1], "{rows:?}");
    let _ = std::fs::remove_file(&path);
}

#[test]
fn a_loa_record_names_its_seats_by_the_roles_and_old_ones_read_alike() {
    // Black moves first in Lines of Action: an old record's `white` field held the
    // player of the first role, Black.
    let old = r#"{"id":"x","size":"6x6","white":"ours","black":"them","start_clock":0,"play_clock":3,"moves":["c1-c3"],"faults":[{"ply":1,"role":"white","kind":"late","detail":"took 3100 ms"}],"goals":[100,0],"duration_ms":3,"move_us":[5],"referee_overhead_us":1,"roles":["black","white"]}"#;
    let record: MatchRecord = serde_json::from_str(old).unwrap();
    assert_eq!(record.players, ["ours", "them"]);
    assert_eq!(
        (record.score_of("ours"), record.faults_of("them")),
        (Some(1.0), 1)
    );
    let written = serde_json::to_string(&record).unwrap();
    assert!(
        written.contains(r#""roles":["black","white"],"players":{"black":"ours","white":"them"}"#),
        "{written}"
    );
    let new: MatchRecord = serde_json::from_str(&written).unwrap();
    assert_eq!(new, record);
    // The object's order does not matter; a role without a player, or a player of no
    // role, is refused with the reason.
    let swapped = written.replace(
        r#"{"black":"ours","white":"them"}"#,
        r#"{"white":"them","black":"ours"}"#,
    );
    assert_eq!(
        serde_json::from_str::<MatchRecord>(&swapped).unwrap(),
        record
    );
    let missing = written.replace(r#","white":"them"}"#, "}");
    let err = serde_json::from_str::<MatchRecord>(&missing).unwrap_err();
    assert!(
        err.to_string().contains(r#"no value for role "white""#),
        "{err}"
    );
    let cpu = written.strip_suffix('}').unwrap().to_owned()
        + r#","cpu":{"red":{"used_ms":1,"left_ms":2}}}"#;
    let err = serde_json::from_str::<MatchRecord>(&cpu).unwrap_err();
    assert!(err.to_string().contains(r#""red" is not a role"#), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_split_tournament_plans_the_missing_games_and_plays_any_one_alone() {
    let path = temp_file("split.jsonl");
    let arena = Arena::native::<WalkSpec>(&["40".into(), "star300".into()], 1000).unwrap();
    let mut config = TournamentConfig {
        play_clocks: vec![PlayClock::parse("0.05").unwrap()],
        ..agents_config(path.clone(), 3)
    };
    let plan = split::plan(&config, &arena).unwrap();
    let numbers: Vec<usize> = plan.iter().map(|g| g.game).collect();
    assert_eq!(numbers, (0..6).collect::<Vec<_>>(), "3 games x 2 sizes");
    let colours: Vec<(&str, &str, &str)> = plan
        .iter()
        .map(|g| {
            let [(w, white), (b, black)] = &g.players.0[..] else {
                panic!("two seats: {g:?}")
            };
            assert_eq!((w.as_str(), b.as_str()), ("white", "black"));
            (white.as_str(), black.as_str(), g.size.as_str())
        })
        .collect();
    assert_eq!(
        colours,
        [
            ("a", "b", "40"),
            ("a", "b", "star300"),
            ("b", "a", "40"),
            ("b", "a", "star300"),
            ("a", "b", "40"),
            ("a", "b", "star300"),
        ]
    );

    // Game 3 alone: its players and board, and the results file untouched.
    let record = split::play_one(&config, &arena, 3).await.unwrap();
    assert_eq!(
        (
            record.players[0].as_str(),
            record.players[1].as_str(),
            record.size.as_str()
        ),
        ("b", "a", "star300")
    );
    assert!(record.id.ends_with("-3"), "{}", record.id);
    assert_eq!(record.worker, None);
    assert!(!path.exists());
    let err = split::play_one(&config, &arena, 6).await.unwrap_err();
    assert!(
        err.to_string().contains("the schedule has 6 games"),
        "{err}"
    );

    // Recorded by a worker: the file reads back with the field, and the plan of the
    // resumed tournament leaves that game out.
    let line = serde_json::to_string(&MatchRecord {
        worker: Some("tcp://10.0.0.7:4000".into()),
        ..record
    })
    .unwrap();
    assert!(line.contains(r#""worker":"tcp://10.0.0.7:4000""#), "{line}");
    std::fs::write(&path, line + "\n").unwrap();
    assert!(split::plan(&config, &arena).is_err(), "needs --resume");
    config.resume = true;
    let left: Vec<usize> = split::plan(&config, &arena)
        .unwrap()
        .iter()
        .map(|g| g.game)
        .collect();
    assert_eq!(left, [0, 1, 2, 4, 5]);
    let read = tournament::read_results(&path).unwrap();
    assert_eq!(read[0].worker.as_deref(), Some("tcp://10.0.0.7:4000"));

    // Once the SPRT is decided on the file, nothing is left to plan.
    config.sprt = Some(Sprt {
        elo0: -200.0,
        elo1: 200.0,
        alpha: 0.45,
        beta: 0.45,
    });
    let won = MatchRecord {
        goals: [100, 0],
        ..read[0].clone()
    };
    let won = serde_json::to_string(&won).unwrap() + "\n";
    std::fs::write(&path, won.repeat(6)).unwrap();
    assert!(split::plan(&config, &arena).unwrap().is_empty());
    let _ = std::fs::remove_file(&path);
}

#[test]
fn results_are_counted_by_comparing_the_goals() {
    // A GDL game may end 50 to 100: a loss for the 50, not a draw; 0 to 0 is a draw.
    let record = |goals: &str| -> MatchRecord {
        let line = format!(
            r#"{{"id":"g","size":"pentago","roles":["red","blue"],"players":{{"red":"a","blue":"b"}},"dialect":"ggp-base","start_clock":5,"play_clock":1,"moves":[],"faults":[],"goals":{goals},"duration_ms":3,"move_us":[],"referee_overhead_us":0}}"#
        );
        serde_json::from_str(&line).unwrap()
    };
    let lost = record("[50,100]");
    assert_eq!(lost.verdict(), "blue wins");
    assert_eq!(
        (lost.score_of("a"), lost.score_of("b")),
        (Some(0.0), Some(1.0))
    );
    let won = record("[70,30]");
    assert_eq!(won.verdict(), "red wins");
    assert_eq!(won.score_of("a"), Some(1.0));
    let nil = record("[0,0]");
    assert_eq!(nil.verdict(), "draw");
    assert_eq!(
        (nil.score_of("a"), nil.score_of("b")),
        (Some(0.5), Some(0.5))
    );
    let names = ["a".to_owned(), "b".to_owned()];
    let records = vec![lost, won, nil];
    let rows = tournament::table(&records, &names);
    assert_eq!(rows[0].wdl.to_string(), "+1 =1 -1");
    // The summary shows the goals themselves.
    let outcome = tournament::Outcome {
        records,
        first_pair: Default::default(),
        verdict: None,
        interrupted: false,
    };
    let lines = summary::summary(&config(temp_file("goals.jsonl"), 3), &outcome);
    assert!(
        lines.contains(&"goals (first role-second role): 70-30 ×1, 50-100 ×1, 0-0 ×1".to_owned()),
        "{lines:?}"
    );
}
