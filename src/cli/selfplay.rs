//! `selfplay` and `tune`: evaluations against each other, and fitting one to the games.

use std::path::PathBuf;

use anyhow::Context;
use ggp_player::games;
use ggp_player::referee::stats::format_elo;
use ggp_player::selfplay;
use ggp_player::spec::{GameSpec, Tool};

#[derive(clap::Args)]
pub struct SelfplayArgs {
    #[command(flatten)]
    pub config: selfplay::SelfplayConfig,
    /// The game.
    #[arg(long, default_value = "breakthrough")]
    pub game: String,
    /// Append the games' positions to this file (one line each, with the result).
    #[arg(long)]
    pub record: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct TuneArgs {
    /// Positions files written by `selfplay --record`.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Where to write the weights (e.g. src/games/breakthrough/weights.rs); printed if absent.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The game whose evaluation is fitted.
    #[arg(long, default_value = "breakthrough")]
    pub game: String,
    /// Fit without this term: its weights are written as 0 and the others fitted to its
    /// absence. A term names every feature holding its words (e.g. threat, or
    /// "us hanging"); repeat the option for more terms.
    #[arg(long, value_name = "TERM")]
    pub without: Vec<String>,
}

pub fn selfplay(args: SelfplayArgs) -> anyhow::Result<()> {
    let tool = SelfplayCmd {
        config: args.config,
        record: args.record,
    };
    games::dispatch(&args.game, tool)?
}

pub fn tune(args: TuneArgs) -> anyhow::Result<()> {
    let tool = Tune {
        files: args.files,
        out: args.out,
        without: args.without,
    };
    games::dispatch(&args.game, tool)?
}

/// `selfplay` on any game.
struct SelfplayCmd {
    config: selfplay::SelfplayConfig,
    record: Option<PathBuf>,
}

impl Tool for SelfplayCmd {
    type Output = anyhow::Result<()>;
    fn run<S: GameSpec>(self) -> anyhow::Result<()> {
        let config = &self.config;
        selfplay::check::<S>(config, self.record.is_some()).map_err(anyhow::Error::msg)?;
        let file = match &self.record {
            Some(path) => Some(selfplay::PositionsFile::append(path).map_err(anyhow::Error::msg)?),
            None => None,
        };
        let record = |lines: &[String]| {
            if let Some(f) = &file {
                f.record(lines);
            }
        };
        let bar = indicatif::ProgressBar::new(u64::from(config.openings) * 2);
        let wdl = selfplay::run::<S>(
            config,
            |w| {
                bar.set_position(u64::from(w.games()));
                bar.set_message(format!("{w}"));
            },
            file.is_some()
                .then_some(&record as &(dyn Fn(&[String]) + Sync)),
        )
        .map_err(anyhow::Error::msg);
        bar.finish_and_clear();
        let wdl = wdl?;
        if let Some(f) = file {
            f.finish().map_err(anyhow::Error::msg)?;
        }
        let (lo, elo, hi) = wdl.elo();
        println!(
            "{} vs {} on {} at depth {}: {wdl}, score {:.1}%, Elo {} [{}, {}]",
            config.first,
            config.second,
            config.size.as_deref().unwrap_or(S::DEFAULT_SIZE),
            config.depth,
            100.0 * wdl.score(),
            format_elo(elo),
            format_elo(lo),
            format_elo(hi)
        );
        Ok(())
    }
}

/// `tune` on any game with an evaluation to fit.
struct Tune {
    files: Vec<PathBuf>,
    out: Option<PathBuf>,
    without: Vec<String>,
}

impl Tool for Tune {
    type Output = anyhow::Result<()>;
    fn run<S: GameSpec>(self) -> anyhow::Result<()> {
        let Some(tuning) = S::tune(&self.files, &self.without) else {
            anyhow::bail!("{} has no evaluation to fit", S::NAME);
        };
        let tuning = tuning.map_err(anyhow::Error::msg)?;
        eprintln!("{}", tuning.data);
        println!("{}", tuning.report);
        match self.out {
            Some(path) => {
                std::fs::write(&path, tuning.source)
                    .with_context(|| format!("cannot write {}", path.display()))?;
                println!("weights written to {}", path.display());
            }
            None => print!("{}", tuning.source),
        }
        Ok(())
    }
}
