//! The referee: real matches between `serve` processes over HTTP in both dialects,
//! and players that misbehave in every way a referee must survive.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use crate::common::move_of_record;
use ggp_player::games::breakthrough::spec::Breakthrough;
use ggp_player::games::breakthrough::{Board, MoveList};
use ggp_player::referee::dialect::Dialect;
use ggp_player::referee::ggp_match::{GgpGame, MatchSpec};
use ggp_player::referee::players::{PlayerSpec, RunningPlayer};
use ggp_player::referee::record::{FaultKind, MatchRecord};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

fn engine(args: &str) -> PlayerSpec {
    PlayerSpec::Command(format!("{} serve {args}", env!("CARGO_BIN_EXE_ggp-player")))
}

/// Breakthrough on `size` over GGP, refereed by the engine, between `addrs`.
async fn play_match(
    size: &str,
    addrs: [String; 2],
    dialect: Dialect,
    play_clock: u64,
) -> MatchRecord {
    let game = GgpGame::of::<Breakthrough>(size, None).unwrap();
    assert!(
        game.reasoner().is_none(),
        "the engine referees Breakthrough"
    );
    let spec = MatchSpec {
        id: format!("test-{size}-{dialect:?}"),
        addrs,
        names: ["white-player".into(), "black-player".into()],
        start_clock: 5,
        play_clock,
        dialect,
    };
    let record = game.play(&spec).await;
    assert_eq!(record.size, size);
    assert_eq!(record.roles, ["white", "black"]);
    record
}

/// Replays a record's moves on a fresh board: every move legal, the result right.
fn check_record(record: &MatchRecord, size: &str) {
    let mut board = Board::new(size.parse().unwrap());
    for text in &record.moves {
        let m = move_of_record(&board, text).unwrap_or_else(|| panic!("{text} illegal"));
        assert!(board.goals().is_none(), "a move after the end");
        board.make(m);
    }
    assert_eq!(
        board.goals(),
        Some(record.goals),
        "the recorded result is the board's"
    );
    assert_eq!(record.move_us.len(), record.moves.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn matches_between_real_servers_in_both_dialects() {
    // A 2 s play clock of which the player searches 200 ms: the 1.8 s it keeps back holds
    // while other tests load the machine. One thread, no pondering: both players share it.
    let alphabeta = RunningPlayer::start(&engine(
        "--agent alphabeta --margin-ms 1800 --threads 1 --no-ponder",
    ))
    .await
    .unwrap();
    let random = RunningPlayer::start(&engine("--agent random --seed 3 --no-ponder"))
        .await
        .unwrap();
    for (dialect, size) in [
        (Dialect::GgpBase, "5x5"),
        (Dialect::Dresden, "5x5"),
        (Dialect::Dresden, "3x5"),
    ] {
        let record = play_match(
            size,
            [alphabeta.addr.clone(), random.addr.clone()],
            dialect,
            2,
        )
        .await;
        assert!(record.faults.is_empty(), "{dialect:?}: {:?}", record.faults);
        check_record(&record, size);
        if size == "5x5" {
            assert_eq!(
                record.goals,
                [100, 0],
                "alphabeta beats random as white ({dialect:?})"
            );
        }
        assert!(
            record.move_us.iter().all(|&us| us < 2_000_000),
            "every reply within the play clock: {:?}",
            record.move_us
        );
    }
    alphabeta.stop().await;
    random.stop().await;
}

/// A player that answers every PLAY with the next of `replies` (after an optional
/// delay), START with `ready`, anything else with `done`.
async fn fake_player(replies: Vec<(&'static str, u64)>) -> (String, Arc<AtomicU32>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let plays = Arc::new(AtomicU32::new(0));
    let counter = plays.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let counter = counter.clone();
            let replies = replies.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 1 << 16];
                let mut got = 0;
                let text = loop {
                    let n = socket.read(&mut buf[got..]).await.unwrap_or(0);
                    got += n;
                    let text = String::from_utf8_lossy(&buf[..got]).to_string();
                    if n == 0 || text.contains("\r\n\r\n") && text.ends_with(')') {
                        break text;
                    }
                };
                let (reply, delay) = if text.contains("PLAY") {
                    let i = counter.fetch_add(1, Ordering::SeqCst) as usize;
                    replies[i % replies.len()]
                } else if text.contains("START") {
                    ("ready", 0)
                } else {
                    ("done", 0)
                };
                tokio::time::sleep(Duration::from_millis(delay)).await;
                let response = format!("HTTP/1.0 200 OK\r\nContent-Type: text/acl\r\n\r\n{reply}");
                let _ = socket.write_all(response.as_bytes()).await;
            });
        }
    });
    (addr, plays)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn misbehaving_players_lose_their_moves_but_the_match_goes_on() {
    let random = RunningPlayer::start(&engine("--agent random --seed 5"))
        .await
        .unwrap();
    // Black's replies alternate between white's turns (even) and its own (odd): on
    // its own it is late, then illegal, then unreadable; on white's it once answers a
    // move instead of noop. The referee substitutes and records every fault.
    let (broken, plays) = fake_player(vec![
        ("noop", 0),
        ("(move 1 4 1 3)", 2300),
        ("(move 1 2 1 3)", 0),
        ("(move 9 9 9 8)", 0),
        ("noop", 0),
        (")(garbage", 0),
    ])
    .await;
    let record = play_match("3x5", [random.addr.clone(), broken], Dialect::GgpBase, 1).await;
    check_record(&record, "3x5");
    assert!(
        plays.load(Ordering::SeqCst) >= 6,
        "the fake player was asked every turn"
    );
    let kinds: Vec<FaultKind> = record.faults.iter().map(|f| f.kind).collect();
    for kind in [
        FaultKind::Late,
        FaultKind::Illegal,
        FaultKind::Garbage,
        FaultKind::NotNoop,
    ] {
        assert!(
            kinds.contains(&kind),
            "{kind:?} not recorded in {:?}",
            record.faults
        );
    }
    assert!(
        record.faults.iter().all(|f| f.role == "black"),
        "{:?}",
        record.faults
    );

    // A player that cannot be reached at all: every move is substituted.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .to_string();
    let record = play_match("3x5", [closed, random.addr.clone()], Dialect::Dresden, 1).await;
    check_record(&record, "3x5");
    assert!(
        record
            .faults
            .iter()
            .any(|f| f.kind == FaultKind::Unreachable && f.role == "white")
    );
    // White's substitutes are the first legal moves in coordinate order.
    let board = Board::new("3x5".parse().unwrap());
    let mut list = MoveList::default();
    board.generate_moves(&mut list);
    let first = list.iter().map(|m| board.move_coords(m)).min().unwrap();
    assert_eq!(
        record.moves[0],
        format!("(move {} {} {} {})", first.0, first.1, first.2, first.3)
    );
    random.stop().await;
}
