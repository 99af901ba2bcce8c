//! `ataxx`: the NUS CS3243 (2010) Ataxx Reloaded agent, one request per process on
//! standard input (`identify`, or `move` and a 7×7 board) answered on standard output.

fn main() -> std::process::ExitCode {
    let started = std::time::Instant::now();
    ggp_player::oneshot::main::<ggp_player::games::ataxx::spec::AtaxxSpec>(started)
}
