//! `loa`: the UC Berkeley CS61B (Spring 2020) Lines of Action program (`GAMES.md` §3), a
//! long-running text interpreter that a person or the course's harness (`test-loa`)
//! drives: commands in, prompts, AI moves, results and board dumps out.
//!
//! - [`command`] reads a line as a command;
//! - [`session`] holds the game and runs the loop;
//! - [`text`] writes the lines the harness reads;
//! - [`ai`] and [`clock`] choose the AI's moves within the harness's clocks;
//! - [`display`] shows the game on the web page (`--display`).
//!
//! How the referee talks to this program is the game's own description,
//! `ggp_player::games::loa::cs61b`.
//!
//! Rule decisions (`GAMES.md` §3.4): 60 plies in all and `limit N` = 2N plies (L8-1),
//! moves printed `* b4-d6` (L8-2), ASCII dashes (L8-3), a side without a legal move
//! passes (L8-4), `new` restores the default limit (L8-5), `set` can end a game and the
//! winner is read from the position after it (L8-6), moves read in either case (L8-7),
//! and the AI's time counted against both the harness's wall clock and a CPU cap (L8-8).

mod ai;
mod clock;
mod command;
mod display;
mod session;
mod text;

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use session::{Ending, Session};

#[derive(Parser, Debug)]
#[command(
    name = "loa",
    version,
    about = "Lines of Action 8x8 as the CS61B (Spring 2020) program: type commands, or \
             feed a script (`help` in the program lists the commands)",
    long_about = "Lines of Action 8x8 as the CS61B (Spring 2020) program.\n\n\
                  Reads one command a line from INPUT (standard input by default): moves \
                  such as b1-d3, new, auto P, manual P, set CR P N, dump, seed N, limit N, \
                  help and quit. At first White is played by the program and Black is \
                  typed in. AI moves are printed as `* e1-e3`, results as `* Black wins.`, \
                  `* White wins.` or `* Tie game.`. The exit status is 0 unless --strict \
                  stops at a refused move or a file cannot be opened."
)]
struct Cli {
    /// Show the game on a web page too, served on 127.0.0.1 (its address is printed on
    /// standard error); the page can make the moves of a side that is typed in.
    #[arg(long)]
    display: bool,
    /// The display's port (0: any free port).
    #[arg(long, value_name = "N", default_value_t = 0, requires = "display")]
    port: u16,
    /// Write the games to FILE as a script that replays them.
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// Exit with status 1 at the first move that is refused.
    #[arg(long)]
    strict: bool,
    /// Write DIR/java, a stand-in for the course's `java -ea loa.Main ARGS` that runs
    /// this program with ARGS, and exit. With DIR first on PATH, the course's own
    /// test-loa scripts (whose first line starts `java ... loa.Main`) run unchanged.
    #[arg(long, value_name = "DIR", exclusive = true)]
    java_shim: Option<PathBuf>,
    /// Read commands from this file instead of standard input.
    input: Option<PathBuf>,
    /// Write to this file instead of standard output.
    output: Option<PathBuf>,
}

/// The program: parses the command line, runs the session, returns its exit status.
fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(dir) = &cli.java_shim {
        return match write_java_shim(dir) {
            Ok(path) => {
                eprintln!(
                    "loa: wrote {}; put its folder first on PATH to run the course's scripts",
                    path.display()
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("loa: {e}");
                ExitCode::FAILURE
            }
        };
    }
    match run(&cli) {
        Ok(Ending::Quit) => ExitCode::SUCCESS,
        Ok(Ending::IllegalMove) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("loa: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Standard input, or the file INPUT.
fn open_input(path: Option<&PathBuf>) -> Result<Box<dyn BufRead + Send>, String> {
    Ok(match path {
        Some(path) => {
            let cannot = |e: String| format!("cannot read {}: {e}", path.display());
            let file = File::open(path).map_err(|e| cannot(e.to_string()))?;
            // A directory opens, and fails only at the first read, which knows no name.
            if file.metadata().is_ok_and(|m| m.is_dir()) {
                return Err(cannot("it is a directory".into()));
            }
            Box::new(BufReader::new(file))
        }
        None => Box::new(BufReader::new(io::stdin())),
    })
}

fn run(cli: &Cli) -> Result<Ending, String> {
    let output: Box<dyn Write> = match &cli.output {
        Some(path) => Box::new(BufWriter::new(
            File::create(path).map_err(|e| format!("cannot write {}: {e}", path.display()))?,
        )),
        None => Box::new(io::stdout().lock()),
    };
    let typed = open_input(cli.input.as_ref())?;
    let seed = rand::random::<u64>();
    let mut session = Session::new(output, io::stderr(), seed, cli.strict);
    if let Some(path) = &cli.log {
        let file =
            File::create(path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        session
            .log_to(Box::new(BufWriter::new(file)))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if !cli.display {
        return session.run(typed).map_err(|e| e.to_string());
    }
    // The typed lines and the page's moves, in the order they come.
    let (lines, input) = std::sync::mpsc::channel();
    let display = display::Display::start(cli.port, session.board(), session.auto(), lines.clone())
        .map_err(|e| format!("cannot serve the display on 127.0.0.1:{}: {e}", cli.port))?;
    eprintln!(
        "loa: the board is on http://{}/ (open it in a browser)",
        display.addr
    );
    session.display_on(display);
    std::thread::spawn(move || display::forward(typed, lines));
    session
        .run(display::Lines::new(input))
        .map_err(|e| e.to_string())
}

/// Writes `dir/java`: a shell script that drops the JVM's words up to `loa.Main` and runs
/// this program with the rest. Returns its path.
fn write_java_shim(dir: &std::path::Path) -> Result<PathBuf, String> {
    use std::os::unix::fs::PermissionsExt;
    let loa = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| format!("cannot tell where this program is: {e}"))?;
    let loa = loa.to_str().ok_or("this program's path is not UTF-8")?;
    if loa.contains('\'') {
        return Err(format!("this program's path {loa:?} contains a quote"));
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    let path = dir.join("java");
    let script = format!(
        "#!/bin/sh\n\
         # Written by `loa --java-shim`: the course's `java [JVM options] loa.Main ARGS`\n\
         # runs `loa ARGS` instead.\n\
         while [ $# -gt 0 ]; do\n\
         \x20 case \"$1\" in\n\
         \x20   loa.Main) shift; exec '{loa}' \"$@\" ;;\n\
         \x20   -cp|-classpath|--class-path) shift 2 ;;\n\
         \x20   *) shift ;;\n\
         \x20 esac\n\
         done\n\
         echo \"java (loa's stand-in): only loa.Main can be run\" >&2\n\
         exit 2\n"
    );
    std::fs::write(&path, script).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("cannot make {} executable: {e}", path.display()))?;
    Ok(path)
}
