//! `loa`: the CS61B (Spring 2020) Lines of Action program, commands on standard input
//! (or a file) and the board, AI moves and results on standard output.

fn main() -> std::process::ExitCode {
    ggp_player::games::loa::cs61b::main()
}
