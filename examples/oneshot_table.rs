//! What the `ataxx` program's table costs its search: one request's search, as the
//! program makes it, with the table's pages left to the search (`lazy`, the program's
//! way) or written before it starts (`written`), within the same clock from the process's
//! start. Prints the table's size, the time spent writing it, the depth and the nodes.
//!
//!     cargo build --release --example oneshot_table
//!     target/release/examples/oneshot_table lazy 64 4.1 < request.txt
//!
//! Page faults: run it under `/usr/bin/time -v`.

use std::io::Read;
use std::time::{Duration, Instant};

use ggp_player::agent::{Agent, AgentConfig, AgentKind};
use ggp_player::games::ataxx::spec::AtaxxSpec;
use ggp_player::search::Limits;
use ggp_player::spec::read_position;

fn main() -> Result<(), String> {
    let started = Instant::now();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [how, mb, seconds] = &args[..] else {
        return Err("usage: oneshot_table lazy|written MIB SECONDS < REQUEST".into());
    };
    let hash_mb: usize = mb.parse().map_err(|e| format!("MIB {mb:?}: {e}"))?;
    let seconds: f64 = seconds
        .parse()
        .map_err(|e| format!("SECONDS {seconds:?}: {e}"))?;
    let mut request = String::new();
    std::io::stdin()
        .read_to_string(&mut request)
        .map_err(|e| e.to_string())?;
    let position = read_position::<AtaxxSpec>(&request)?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let config = AgentConfig {
        kind: AgentKind::Alphabeta,
        threads,
        hash_mb,
        ..AgentConfig::default()
    };
    let made = Instant::now();
    let mut agent = match how.as_str() {
        "lazy" => Agent::for_one_move::<AtaxxSpec>(config),
        "written" => Agent::new::<AtaxxSpec>(config),
        _ => return Err(format!("{how:?}: lazy or written")),
    };
    let writing = made.elapsed();
    let limits = Limits::until(started + Duration::from_secs_f64(seconds));
    let search = agent
        .choose(&position, &limits, &[])
        .and_then(|c| c.search)
        .ok_or("the position is over")?;
    println!(
        "{how} {hash_mb} MiB: made in {:.1} ms, depth {}, {} nodes, {} expansions, searched {:.3} s",
        writing.as_secs_f64() * 1e3,
        search.depth,
        search.nodes,
        search.expansions,
        search.time.as_secs_f64()
    );
    Ok(())
}
