//! Tournaments: results written as each match ends, refusal to mix runs, resuming
//! exactly the missing games, and an SPRT that stops the run once decided.

use std::path::PathBuf;

use ggp_player::games::breakthrough::gdl::breakthrough_rules;
use ggp_player::referee::dialect::Dialect;
use ggp_player::referee::players::PlayerSpec;
use ggp_player::referee::stats::{Sprt, Verdict};
use ggp_player::referee::tournament::{self, Entrant, Format, TournamentConfig, TournamentError};
use ggp_player::sexpr::Sexpr;

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
        sizes: vec!["3x5".parse().unwrap(), "4x5".parse().unwrap()],
        play_clocks: vec![1],
        start_clock: 1,
        games,
        concurrency: 2,
        dialect: Dialect::Dresden,
        results,
        resume: false,
        sprt: None,
        progress: false,
        game: None,
    }
}

fn rules(size: ggp_player::games::breakthrough::BoardSize) -> Vec<Sexpr> {
    Sexpr::parse_all(&breakthrough_rules(size)).unwrap()
}

fn temp_file(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("ggp-player-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_are_saved_and_a_resumed_run_plays_only_the_missing_games() {
    let path = temp_file("resume.jsonl");
    let first = tournament::run(&config(path.clone(), 2), rules)
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
            .map(|r| r.white.as_str())
            .collect();
        assert!(
            whites.contains(&"a") && whites.contains(&"b"),
            "{size}: {whites:?}"
        );
    }

    // The same file again without --resume: refused, nothing written.
    let again = tournament::run(&config(path.clone(), 2), rules).await;
    assert!(matches!(again, Err(TournamentError::Config(ref m)) if m.contains("--resume")));
    assert_eq!(tournament::read_results(&path).unwrap().len(), 4);

    // Resumed with more games: only the 4 missing ones are played.
    let mut more = config(path.clone(), 4);
    more.resume = true;
    let resumed = tournament::run(&more, rules).await.unwrap();
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

    // A results file that is not JSON lines is reported, not overwritten.
    std::fs::write(&path, "not json\n").unwrap();
    let mut broken = config(path.clone(), 1);
    broken.resume = true;
    assert!(matches!(
        tournament::run(&broken, rules).await,
        Err(TournamentError::Results { .. })
    ));
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
    let outcome = tournament::run(&c, rules).await.unwrap();
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
        tournament::run(&c, rules).await,
        Err(TournamentError::Config(_))
    ));
    let mut c = config(temp_file("bad.jsonl"), 2);
    c.entrants[1].name = "a".into();
    assert!(
        matches!(tournament::run(&c, rules).await, Err(TournamentError::Config(m)) if m.contains("two players are named a"))
    );
    assert!(Entrant::parse("no-equals-sign").is_err());
    assert!(Entrant::parse("two words=http://127.0.0.1:1").is_err());
}
