//! `halma`: the USC CSCI-561 (2019) Halma agent. Run in a directory holding
//! `input.txt`, it writes its play to `output.txt` there; `halma calibrate` measures
//! this machine's speed once into `calibration.txt`. Messages go to stderr only.

use std::path::Path;
use std::process::ExitCode;

use ggp_player::games::halma::agent;

const USAGE: &str = "usage: halma            (reads input.txt, writes output.txt)\n       halma calibrate  (writes calibration.txt)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let here = Path::new(".");
    match args.as_slice() {
        [] => match agent::play(here) {
            Ok(p) => {
                let cpu = ggp_player::search::cpu::process_time().unwrap_or_default();
                let stop = p.budget.map_or("none: no time to search".into(), |b| {
                    format!("{:.3} s", b.hard.as_secs_f64())
                });
                eprintln!(
                    "halma: {} plays {} (depth {}, {} nodes, {:.3} s CPU of {} s, search stop mark {stop})",
                    p.side,
                    p.lines.trim_end().replace('\n', " | "),
                    p.depth,
                    p.nodes,
                    cpu.as_secs_f64(),
                    p.seconds,
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("halma: {e}");
                ExitCode::FAILURE
            }
        },
        [c] if c == "calibrate" => match agent::calibrate(here) {
            Ok(rate) => {
                eprintln!(
                    "halma: {rate:.0} nodes per CPU second, written to {}",
                    agent::CALIBRATION
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("halma: {e}");
                ExitCode::FAILURE
            }
        },
        [h] if h == "--help" || h == "-h" => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}
