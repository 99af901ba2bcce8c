//! `loa6`: the NUS CS3243 (2007) Lines of Action agent, one request per process on
//! standard input (`identify`, or `move` and a 6×6 board) answered on standard output.

fn main() -> std::process::ExitCode {
    let started = std::time::Instant::now();
    ggp_player::oneshot::main::<ggp_player::games::loa::spec::Loa6>(started)
}
