//! Games other than the Breakthrough the engine plays, over HTTP: the fallback player
//! (Monte-Carlo tree search over the reasoner) against random players in complete
//! matches refereed by the reasoner — tic-tac-toe, a simultaneous-move game, a game for
//! three, scrambled Breakthrough, the course's 10x10 game (in our course-style rules) and
//! tic-tac-toe declared in ggp-base's shorthand — every reply legal and in time; and START messages it cannot play refused clearly while the server serves on.

use std::sync::Arc;
use std::time::Duration;

use ggp_player::games::breakthrough::gdl::course_style_rules;
use ggp_player::gdl::Gdl;
use ggp_player::referee::client;
use ggp_player::referee::dialect::Dialect;
use ggp_player::referee::general::{
    GdlMatchSpec, GdlRecord, play_gdl_match, play_gdl_match_telling,
};
use ggp_player::referee::players::{PlayerSpec, RunningPlayer};
use ggp_player::sexpr::Sexpr;

use crate::common::scramble;

/// The fallback with 200 ms of search per move at a 1 s play clock, to keep tests short.
const FALLBACK: &str = "--margin-ms 800";

fn player(args: &str) -> PlayerSpec {
    PlayerSpec::Command(format!("{} serve {args}", env!("CARGO_BIN_EXE_ggp-player")))
}

async fn start(args: &str) -> RunningPlayer {
    RunningPlayer::start(&player(args)).await.unwrap()
}

fn project_rules(file: &str) -> Vec<Sexpr> {
    let path = format!("{}/gdl/{file}", env!("CARGO_MANIFEST_DIR"));
    Sexpr::parse_all(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The course's 10x10 game (the size-10 defect), in our course-style rules.
fn course_10x10() -> Vec<Sexpr> {
    Sexpr::parse_all(&course_style_rules("10x10".parse().unwrap())).unwrap()
}

/// Course-style 5x5 rules with every symbol renamed, as ggp-base's scrambling does.
fn scrambled_5x5() -> Vec<Sexpr> {
    let plain = Sexpr::parse_all(&course_style_rules("5x5".parse().unwrap())).unwrap();
    scramble(&plain, 55).0
}

fn spec(id: &str, rules: &[Sexpr], players: &[&RunningPlayer], dialect: Dialect) -> GdlMatchSpec {
    GdlMatchSpec {
        id: id.to_owned(),
        game: id.to_owned(),
        rules: rules.to_vec(),
        gdl: Arc::new(Gdl::from_sexprs(rules).unwrap()),
        addrs: players.iter().map(|p| p.addr.clone()).collect(),
        names: (0..players.len()).map(|i| format!("p{i}")).collect(),
        start_clock: 2,
        play_clock: 1,
        dialect,
    }
}

/// Replays a record with the reasoner: every joint move legal, the game over at the end
/// with the recorded goals; no faults; every reply within the play clock.
fn check(record: &GdlRecord, rules: &[Sexpr]) {
    assert!(
        record.faults.is_empty(),
        "{}: {:?}",
        record.id,
        record.faults
    );
    assert!(record.finished, "{}: unfinished", record.id);
    let gdl = Gdl::from_sexprs(rules).unwrap();
    let mut state = gdl.initial_state();
    for joint in &record.moves {
        let terms: Vec<_> = Sexpr::parse(joint)
            .unwrap()
            .as_list()
            .unwrap()
            .iter()
            .map(|m| gdl.term_from_sexpr(m).unwrap())
            .collect();
        assert!(
            !gdl.is_terminal(&state),
            "{}: a move after the end",
            record.id
        );
        for (role, t) in terms.iter().enumerate() {
            assert!(
                gdl.legal_moves(&state, role).contains(t),
                "{}: {joint} illegal",
                record.id
            );
        }
        state = gdl.next_state(&state, &terms);
    }
    assert!(gdl.is_terminal(&state));
    let goals: Vec<u32> = gdl.goals(&state).iter().map(|g| g.unwrap()).collect();
    assert_eq!(goals, record.goals, "{}", record.id);
    assert!(
        record.move_us.iter().all(|&us| us < 1_000_000),
        "{}: a reply after the play clock: {:?}",
        record.id,
        record.move_us
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fallback_plays_small_games_of_any_kind_against_random_players() {
    let fallback = start(FALLBACK).await;
    let random = start("--agent random --seed 11").await;
    let other = start("--agent random --seed 12").await;
    let ttt = project_rules("tictactoe.gdl");
    // The same game declared as ggp-base's own rule sheets do, in a shorthand of their
    // own that GDL's arities refuse: it is played as without the declarations.
    let shorthand = "(base control (val xplayer oplayer)) \
                     (base cell (val 1 2 3) (val 1 2 3) (val x o b)) \
                     (input xplayer mark (val 1 2 3) (val 1 2 3))";
    let declared = [ttt.clone(), Sexpr::parse_all(shorthand).unwrap()].concat();
    // Tic-tac-toe, both roles: the fallback never loses to a random player here.
    for (id, players, us, rules) in [
        ("ttt-x", [&fallback, &random], 0, &ttt),
        ("ttt-o", [&random, &fallback], 1, &declared),
    ] {
        let record = play_gdl_match(&spec(id, rules, &players, Dialect::GgpBase)).await;
        check(&record, rules);
        println!("{id}: {:?} in {} steps", record.goals, record.moves.len());
        assert_ne!(record.goals[us], 0, "{id}: the fallback lost: {record:?}");
    }
    // Simultaneous moves: three rounds of rock-paper-scissors-well.
    let rps = project_rules("rps_well.gdl");
    let heard = std::sync::Mutex::new(Vec::new());
    let tell = |i: usize, m: &str, us: u64| heard.lock().unwrap().push((i, m.to_owned(), us));
    let rps_spec = spec("rps", &rps, &[&random, &fallback], Dialect::Dresden);
    let record = play_gdl_match_telling(&rps_spec, &tell).await;
    check(&record, &rps);
    assert_eq!(record.moves.len(), 3);
    // Every step was told, once and in order, as the record keeps it (`match` prints
    // them so as they come).
    let kept = record.moves.iter().zip(&record.move_us).enumerate();
    let kept: Vec<(usize, String, u64)> = kept.map(|(i, (m, &us))| (i, m.clone(), us)).collect();
    assert_eq!(heard.into_inner().unwrap(), kept);
    // Three roles, moving at once.
    let lun = project_rules("lowest_unique.gdl");
    let players = [&random, &fallback, &other];
    let record = play_gdl_match(&spec("lun", &lun, &players, Dialect::GgpBase)).await;
    check(&record, &lun);
    assert_eq!(record.goals.len(), 3);
    for p in [fallback, random, other] {
        p.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fallback_plays_breakthrough_by_rules_it_is_sent() {
    let fallback = start(FALLBACK).await;
    let random = start("--agent random --seed 13").await;
    // The course's 10x10 rules (the size-10 defect), the fallback as white.
    let course = course_10x10();
    let record = play_gdl_match(&spec(
        "course10",
        &course,
        &[&fallback, &random],
        Dialect::Dresden,
    ))
    .await;
    check(&record, &course);
    println!(
        "course 10x10: {:?} in {} steps",
        record.goals,
        record.moves.len()
    );
    // Scrambled symbols, the fallback as the second role.
    let scrambled = scrambled_5x5();
    let record = play_gdl_match(&spec(
        "scrambled5",
        &scrambled,
        &[&random, &fallback],
        Dialect::GgpBase,
    ))
    .await;
    check(&record, &scrambled);
    println!(
        "scrambled 5x5: {:?} in {} steps",
        record.goals,
        record.moves.len()
    );
    fallback.stop().await;
    random.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn starts_that_cannot_be_played_are_refused_and_the_server_serves_on() {
    let server = start(FALLBACK).await;
    let wait = Duration::from_secs(5);
    let ttt = project_rules("tictactoe.gdl");
    let d = Dialect::GgpBase;
    let cases = [
        (
            d.start(
                "bad1",
                "xplayer",
                &Sexpr::parse_all("(init (cell 1))").unwrap(),
                5,
                1,
            ),
            vec!["cannot be played", "no (role"],
        ),
        (
            d.start(
                "bad2",
                "a",
                &Sexpr::parse_all("(role a) (<= (legal a ?m) (true (cell 1)))").unwrap(),
                5,
                1,
            ),
            vec!["cannot be played", "unsafe"],
        ),
        (
            d.start("bad3", "white", &ttt, 5, 1),
            vec!["role 'white'", "xplayer, oplayer"],
        ),
    ];
    for (body, words) in &cases {
        let reply = client::exchange(&server.addr, body, wait).await.unwrap();
        assert_eq!(reply.status, 422, "{reply:?}");
        for w in words {
            assert!(reply.body.contains(w), "{:?} lacks {w:?}", reply.body);
        }
        let info = client::exchange(&server.addr, "(INFO)", wait)
            .await
            .unwrap();
        assert!(info.body.contains("available"), "{info:?}");
    }
    // And a good START after them is played.
    let start = d.start("good", "oplayer", &ttt, 5, 1);
    let reply = client::exchange(&server.addr, &start, wait).await.unwrap();
    assert_eq!(reply.body, "ready");
    let reply = client::exchange(&server.addr, &d.play("good", None), wait)
        .await
        .unwrap();
    assert_eq!(reply.body, "noop");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_referee_records_every_goal_value_faulty_rules_give() {
    // At the end the rules give role a both 0 and 100: the highest counts, and the
    // record and its result line say what the rules gave.
    let text = "(role a) (role b) (init (step 0)) (legal a go) (legal b go)
        (<= (next (step 1)) (true (step 0))) (<= terminal (true (step 1)))
        (<= (goal a 0) (true (step 1))) (<= (goal a 100) (true (step 1))) (goal b 50)";
    let rules = Sexpr::parse_all(text).unwrap();
    let one = start("--agent random --seed 3").await;
    let two = start("--agent random --seed 4").await;
    let record = play_gdl_match(&spec("faulty", &rules, &[&one, &two], Dialect::GgpBase)).await;
    assert_eq!(record.goals, [100, 50]);
    assert_eq!(record.goal_values, Some(vec![vec![0, 100], vec![50]]));
    let result = record.view().lines().pop().unwrap();
    assert!(
        result.ends_with("; the rules gave a 0 and 100, the highest counted"),
        "{result}"
    );
    let two_player = record.two_player().unwrap();
    assert_eq!(two_player.goal_values, Some([vec![0, 100], vec![50]]));
    assert_eq!(two_player.verdict(), "a wins");
    // Rules that give one value each leave the field out.
    let ttt = project_rules("tictactoe.gdl");
    let record = play_gdl_match(&spec("one-value", &ttt, &[&one, &two], Dialect::GgpBase)).await;
    assert_eq!(record.goal_values, None);
    one.stop().await;
    two.stop().await;
}
