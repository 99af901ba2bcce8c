//! `ggp-player`: the command line. Parses the arguments and hands the command to
//! [`cli::run`]; the commands themselves are in `cli/`, their work in the library.

mod cli;

use std::process::ExitCode;

use clap::Parser;
use tracing_subscriber::EnvFilter;

fn main() -> ExitCode {
    quiet_on_closed_stdout();
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let _flush_logs_on_exit = init_logging(cli.command.log_level());
    match cli::run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Output piped into a reader that stops early (`ggp-player tune data | head`) closes our
/// stdout, and `println!` then panics. That is no error of ours: end quietly with the
/// status a shell gives a process killed by SIGPIPE (128 + 13), as other tools do.
/// Every other panic keeps the default report.
fn quiet_on_closed_stdout() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .unwrap_or("");
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(141);
        }
        report(info)
    }));
}

/// Logs to stderr; `RUST_LOG` overrides `default`. Lines go through a background writer
/// that drops lines rather than wait: a search thread logging into a pipe nobody reads
/// (or a slow terminal) must never hold up a reply. The guard flushes at exit.
fn init_logging(default: &str) -> tracing_appender::non_blocking::WorkerGuard {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .lossy(true)
        .finish(std::io::stderr());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    guard
}
