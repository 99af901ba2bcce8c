//! `gdl print` and `gdl check`.

use std::path::PathBuf;

use anyhow::Context;
use ggp_player::games;
use ggp_player::gdl::Gdl;
use ggp_player::spec::{self, GameSpec, Tool};

use super::GameArgs;

pub fn run(command: GdlCommand) -> anyhow::Result<()> {
    match command {
        GdlCommand::Print { size, game } => {
            let name = game.game.clone();
            games::dispatch(&name, PrintGdl { size, game })?
        }
        GdlCommand::Check { file } => check_gdl(&file),
    }
}

#[derive(clap::Subcommand)]
pub enum GdlCommand {
    /// Print a game's own GDL for a board size (Breakthrough's are the files in gdl/).
    #[command(visible_alias = "breakthrough")]
    Print {
        /// Board size (WIDTHxHEIGHT for Breakthrough, width 2-10, height 4-10).
        size: String,
        #[command(flatten)]
        game: GameArgs,
    },
    /// Read a GDL file with the reasoner: print its roles, the initial state's size, the
    /// legal moves there, and the result of one random game.
    Check {
        /// The GDL (KIF) file.
        file: PathBuf,
    },
}

/// `gdl print`: a game's own GDL.
struct PrintGdl {
    size: String,
    game: GameArgs,
}

impl Tool for PrintGdl {
    type Output = anyhow::Result<()>;
    fn run<S: GameSpec>(self) -> anyhow::Result<()> {
        let variant = self.game.variant.as_deref().unwrap_or(S::VARIANTS[0]);
        // The size and variant are checked the way every tool checks them.
        spec::start::<S>(Some(&self.size), Some(variant)).map_err(anyhow::Error::msg)?;
        let Some(text) = S::gdl_text(&self.size, variant) else {
            anyhow::bail!("{} has no GDL rules", S::NAME);
        };
        print!("{}", text.map_err(anyhow::Error::msg)?);
        Ok(())
    }
}

fn check_gdl(file: &std::path::Path) -> anyhow::Result<()> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let gdl = Gdl::parse(&text).with_context(|| format!("{} is not valid GDL", file.display()))?;
    let roles = gdl.role_names();
    let state = gdl.initial_state();
    println!("roles: {}", roles.join(" "));
    println!("initial state: {} facts", state.len());
    for (role, moves) in roles.iter().zip(gdl.all_legal_moves(&state)) {
        println!("legal moves of {role} at the start: {}", moves.len());
    }
    let game = gdl
        .random_game(&mut rand::rng(), 10_000)
        .map_err(anyhow::Error::msg)?;
    let goals: Vec<String> = game
        .goals
        .iter()
        .map(|g| g.map_or("none".into(), |v| v.to_string()))
        .collect();
    println!(
        "a random game: {} steps, goals {}",
        game.steps,
        goals.join(" ")
    );
    Ok(())
}
