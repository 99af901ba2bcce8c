//! The referee playing `loa` programs the harness's two-program way
//! (`#*remote move/win`): each program set to its side with `manual`/`auto`, fed the
//! other's moves, its `* c1r1-c2r2` lines read after the prompt, and judged on the
//! harness's clocks.

use std::time::Duration;

use ggp_player::agent::{AgentConfig, AgentKind};
use ggp_player::games::loa::Loa;
use ggp_player::games::loa::cs61b::PROTOCOL;
use ggp_player::games::loa::spec::Loa8;
use ggp_player::referee::interactive::Interactive;
use ggp_player::referee::mover::{Fault, Mover};
use ggp_player::referee::native::{self, Contestant, NativeRecord};
use ggp_player::spec::interactive::InteractiveProtocol;
use ggp_player::spec::start;

const LOA: &str = env!("CARGO_BIN_EXE_loa");

fn refereed(first: &mut dyn Mover<Loa>, second: &mut dyn Mover<Loa>) -> NativeRecord {
    let start = start::<Loa8>(None, None).unwrap();
    native::play(
        &start,
        &[],
        [first, second],
        Duration::from_millis(100),
        200,
    )
}

fn random_agent() -> Box<dyn Mover<Loa>> {
    let random = Contestant::Agent(AgentConfig {
        kind: AgentKind::Random,
        seed: Some(5),
        ..AgentConfig::default()
    });
    native::mover::<Loa8>(&random, Duration::from_millis(100)).unwrap()
}

#[test]
fn loa_programs_play_whole_games_against_agents_and_each_other() {
    // Black and White against a random player: every move legal and in time, and the
    // program, which searches, wins.
    let mut program = Interactive::new(LOA, &PROTOCOL);
    let r = refereed(&mut program, &mut *random_agent());
    assert_eq!((r.fault.clone(), r.scores), (None, [1.0, 0.0]), "{r:?}");
    let mut program = Interactive::new(LOA, &PROTOCOL);
    let r = refereed(&mut *random_agent(), &mut program);
    assert_eq!((r.fault.clone(), r.scores), (None, [0.0, 1.0]), "{r:?}");

    // Two programs: each hears the other's moves, and the game ends by the rules (a win
    // or the 60-ply tie), not at the referee's cap.
    let (mut black, mut white) = (
        Interactive::new(LOA, &PROTOCOL),
        Interactive::new(LOA, &PROTOCOL),
    );
    let r = refereed(&mut black, &mut white);
    assert_eq!(r.fault, None, "{r:?}");
    assert!(!r.capped && r.moves.len() <= 60, "{r:?}");
}

/// The protocol with clocks and an output cap short enough to test.
static QUICK: InteractiveProtocol<Loa> = InteractiveProtocol {
    move_limit: Duration::from_millis(500),
    game_limit: Duration::from_secs(2),
    max_lines: 100,
    ..PROTOCOL
};

/// The fault of a program playing Black with `command` as its shell command.
fn fault_of(command: &str) -> Fault {
    let mut program = Interactive::new(command, &QUICK);
    let r = refereed(&mut program, &mut *random_agent());
    assert_eq!(r.scores, [0.0, 1.0], "{r:?}");
    let (side, fault) = r.fault.expect("the program loses by a fault");
    assert_eq!(side, 0);
    fault
}

#[test]
fn a_program_that_breaks_the_harness_rules_loses() {
    // Black's a1 is an empty corner: no move starts there.
    assert_eq!(
        fault_of("read a; read b; echo 'b> * a1-a2'; cat >/dev/null"),
        Fault::Illegal("\"a1-a2\"".into())
    );
    assert!(matches!(fault_of("cat >/dev/null"), Fault::Late { ms } if ms >= 500));
    assert_eq!(
        fault_of("exit 0"),
        Fault::Illegal("ended without a move".into())
    );
    assert_eq!(
        fault_of("echo 'Exception in thread \"main\" java.lang.Error' >&2; exit 1"),
        Fault::Illegal("crashed: Exception in thread \"main\" java.lang.Error".into())
    );
    assert_eq!(
        fault_of("yes 'b> thinking'"),
        Fault::Illegal("printed more than 100 lines".into())
    );
}

#[test]
fn what_a_program_starts_ends_with_its_game() {
    let pid_file = std::env::temp_dir().join(format!("loa-child-{}.pid", std::process::id()));
    let command = format!(
        "sleep 60 & echo $! > {}; read a; read b; echo '* a1-a2'; cat >/dev/null",
        pid_file.display()
    );
    assert!(matches!(fault_of(&command), Fault::Illegal(_)));
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    std::fs::remove_file(&pid_file).unwrap();
    // Killed: soon gone, or a zombie waiting for its new parent to reap it.
    let ended = || {
        std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()))
            .map_or(true, |s| s.contains(") Z "))
    };
    let asked = std::time::Instant::now();
    while !ended() && asked.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(ended(), "the program's child still runs");
}

#[test]
fn match_plays_loa_programs_from_the_command_line() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ggp-player"))
        .args([
            "match",
            "--game",
            "loa8",
            "--black",
            &format!("program:{LOA}"),
        ])
        .args(["--white", "agent:random", "--playclock", "0.1"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // --black names LOA's Black, the first to move: the program, which beats a random
    // player.
    assert!(stdout.contains("black program"), "{stdout}");
    assert!(stdout.contains("(black wins)"), "{stdout}");
    assert!(stdout.contains(", 0 faults"), "{stdout}");
}
