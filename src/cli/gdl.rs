//! `gdl print`, `gdl check`, `gdl compare` and `gdl bench`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use ggp_player::gdl::{Engine, Evaluator, Gdl, RACE_TIME, playouts_in};
use ggp_player::mcts::cutoff::{CutoffSetting, Detection, WALKS};
use ggp_player::mcts::heuristic::{self, HeuristicSetting};
use ggp_player::mcts::walks::Walks;
use ggp_player::mcts::{Budget, Mcts, Playouts, Timer};
use ggp_player::rng::seeded;
use ggp_player::sexpr::Sexpr;
use ggp_player::spec::{self, GameSpec, Tool};
use ggp_player::{games, input_file};

use super::GameArgs;

pub fn run(command: GdlCommand) -> anyhow::Result<()> {
    match command {
        GdlCommand::Print { size, game } => {
            let name = game.game.clone();
            games::dispatch(&name, PrintGdl { size, game })?
        }
        GdlCommand::Check { file, engine } => check_gdl(&file, engine),
        GdlCommand::Compare {
            file,
            games,
            seed,
            scramble,
        } => compare(&file, games, seed, scramble),
        GdlCommand::Bench {
            file,
            seconds,
            rounds,
            mcts,
            cutoff,
            heuristics,
            rave,
        } => bench(&file, seconds, rounds, mcts, (cutoff, heuristics, rave)),
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
    /// Read a GDL file: print which model answers (the propositional network, or the
    /// reasoner and why), its roles, the initial state's size, the legal moves there,
    /// and the result of one random game.
    Check {
        /// The GDL (KIF) file.
        file: PathBuf,
        /// The model that answers: auto (the network if it can be built and is not
        /// clearly slower than the reasoner in a short race, as the player chooses),
        /// reasoner or propnet.
        #[arg(long, value_enum, default_value_t = Engine::Auto)]
        engine: Engine,
    },
    /// Play random games answered by both the propositional network and the reasoner,
    /// and stop at the first query on which they differ.
    Compare {
        /// The GDL (KIF) file.
        file: PathBuf,
        /// Random games to play.
        #[arg(long, default_value_t = 100)]
        games: usize,
        /// Seed of the random moves.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Rename every symbol of the rules but GDL's keywords, numbers and variables to
        /// a random word drawn from this seed first (as ggp-base scrambles rules).
        #[arg(long, value_name = "SEED")]
        scramble: Option<u64>,
    },
    /// Random playouts per second from the initial state, by the reasoner and by the
    /// propositional network (evaluated by sweeping every gate each step, and by
    /// propagating only the changes), measured in alternate rounds.
    Bench {
        /// The GDL (KIF) file.
        file: PathBuf,
        /// Seconds of playouts per model in each round.
        #[arg(long, default_value_t = 2.0)]
        seconds: f64,
        /// Rounds (each model once per round); the medians are reported.
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Measure instead Monte-Carlo tree searches from the initial state, with random,
        /// MAST and NST playouts, a fresh tree each: their playouts per second (where a
        /// network is built, by the reasoner and by each way of evaluating the network).
        #[arg(long)]
        mcts: bool,
        /// With --mcts: whether the playouts may be cut by the goal values, as `serve
        /// --cutoff` decides it.
        #[arg(long, value_enum, default_value_t = CutoffSetting::Auto)]
        cutoff: CutoffSetting,
        /// With --mcts: whether the playouts may be cut and scored by a heuristic found by
        /// random games, as `serve --heuristics` decides it (the line it prints says what
        /// was found).
        #[arg(long, value_enum, default_value_t = HeuristicSetting::default())]
        heuristics: HeuristicSetting,
        /// With --mcts: the trees' selection reading all-moves statistics (GRAVE), as
        /// `serve --rave true` has it.
        #[arg(long)]
        rave: bool,
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

/// The rules of `file`.
fn read(file: &Path) -> anyhow::Result<Vec<Sexpr>> {
    let text = input_file::read_to_string(file, input_file::RULES).map_err(anyhow::Error::msg)?;
    Sexpr::parse_all(&text).with_context(|| format!("{} is not valid GDL", file.display()))
}

/// The rules of `file`, compiled and answered by `engine`.
fn compile(file: &Path, engine: Engine) -> anyhow::Result<Gdl> {
    compile_rules(file, &read(file)?, engine, false)
}

/// `rules` (read from `file`) compiled and answered by `engine`; with `race` and
/// [`Engine::Auto`], by the faster model as the player chooses it.
fn compile_rules(file: &Path, rules: &[Sexpr], engine: Engine, race: bool) -> anyhow::Result<Gdl> {
    let invalid = || format!("{} is not valid GDL", file.display());
    let mut gdl = Gdl::from_sexprs(rules).with_context(invalid)?;
    let mut fallback = gdl
        .use_engine(engine, None)
        .map_err(anyhow::Error::msg)
        .with_context(|| format!("no propositional network for {}", file.display()))?;
    if race
        && engine == Engine::Auto
        && let Some(race) = gdl.keep_the_faster(RACE_TIME)
    {
        println!("race: {race}");
        if race.reasoner_wins() {
            fallback = Some(race.why_not_the_network());
        }
    }
    println!("model: {}", gdl.model_description(fallback.as_deref()));
    Ok(gdl)
}

fn check_gdl(file: &Path, engine: Engine) -> anyhow::Result<()> {
    let gdl = compile_rules(file, &read(file)?, engine, true)?;
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
    let end = if game.terminal {
        ""
    } else {
        " (stopped there: no terminal state reached)"
    };
    println!(
        "a random game: {} steps, goals {}{end}",
        game.steps,
        goals.join(" ")
    );
    // A terminal state must give every role one goal, a whole number from 0 to 100.
    // Sheets in use leave out a goal of 0 (ggp-base's buttons), so that one is a warning.
    if game.terminal {
        for (role, goal) in roles.iter().zip(&game.goals) {
            match goal {
                None => println!(
                    "warning: {role} has no goal value in the terminal state the random game \
                     reached (the rules are faulty there; the player and the referee count it as 0)"
                ),
                Some(v) if *v > 100 => anyhow::bail!(
                    "{}: {role}'s goal value {v} in the terminal state the random game reached is above 100",
                    file.display()
                ),
                Some(_) => {}
            }
        }
    }
    Ok(())
}

fn compare(file: &Path, games: usize, seed: u64, scramble: Option<u64>) -> anyhow::Result<()> {
    let mut rules = read(file)?;
    if let Some(scramble_seed) = scramble {
        let (scrambled, names) = ggp_player::gdl::scramble(&rules, scramble_seed);
        println!(
            "scrambled with seed {scramble_seed}: {} symbols renamed",
            names.len()
        );
        rules = scrambled;
    }
    let gdl = compile_rules(file, &rules, Engine::Propnet, false)?;
    let done = gdl
        .compare_with_reasoner(games, &mut seeded(Some(seed)))
        .map_err(anyhow::Error::msg)?;
    println!(
        "the models agree on {} states of {} random games ({} reached a terminal state)",
        done.states, done.games, done.terminal
    );
    Ok(())
}

fn bench(
    file: &Path,
    seconds: f64,
    rounds: usize,
    mcts: bool,
    search: (CutoffSetting, HeuristicSetting, bool),
) -> anyhow::Result<()> {
    if !(seconds > 0.0 && seconds <= 3600.0) || rounds == 0 {
        anyhow::bail!("--seconds must be in (0, 3600] and --rounds at least 1");
    }
    let gdl = compile(file, Engine::Auto)?;
    if mcts {
        let time = Duration::from_secs_f64(seconds);
        return bench_mcts(Arc::new(gdl), time, rounds, search);
    }
    let mut models = vec![("reasoner", gdl.reasoner_only())];
    if gdl.engine_name() == "propnet" {
        models.push(("sweep", gdl.with_evaluator(Evaluator::Sweep)));
        models.push(("propagate", gdl.with_evaluator(Evaluator::Propagate)));
    }
    let time = Duration::from_secs_f64(seconds);
    let mut rates: Vec<Vec<f64>> = vec![Vec::new(); models.len()];
    let mut rng = seeded(Some(1));
    for round in 1..=rounds {
        let mut line = format!("round {round}:");
        for ((name, model), rates) in models.iter().zip(&mut rates) {
            let (n, took) = playouts_in(model, time, &mut rng);
            let rate = n as f64 / took.as_secs_f64();
            rates.push(rate);
            line += &format!(" {name} {rate:.0}/s");
        }
        println!("{line}");
    }
    let medians: Vec<f64> = rates.iter_mut().map(|r| median(r)).collect();
    let mut line = String::from("median playouts/s:");
    for ((name, _), m) in models.iter().zip(&medians) {
        line += &format!(" {name} {m:.0}");
    }
    if let [reasoner, sweep, propagate] = medians[..] {
        // A model that finished no playout in its rounds has no ratio.
        let times = |a: f64, b: f64, digits: usize| {
            if b > 0.0 {
                format!("{:.*}x", digits, a / b)
            } else {
                "-".to_owned()
            }
        };
        line += &format!(
            " (sweep/reasoner {}, propagate/reasoner {}, propagate/sweep {})",
            times(sweep, reasoner, 1),
            times(propagate, reasoner, 1),
            times(propagate, sweep, 2)
        );
    }
    println!("{line}");
    Ok(())
}

/// `gdl bench --mcts`: searches with each kind of playout in turn, each round.
fn bench_mcts(
    gdl: Arc<Gdl>,
    time: Duration,
    rounds: usize,
    (cutoff, heuristics, rave): (CutoffSetting, HeuristicSetting, bool),
) -> anyhow::Result<()> {
    // With a network, the reasoner too: the race at START compares the two.
    let models: Vec<(&str, Arc<Gdl>)> = if gdl.engine_name() == "propnet" {
        vec![
            ("/reasoner", Arc::new(gdl.reasoner_only())),
            ("/sweep", Arc::new(gdl.with_evaluator(Evaluator::Sweep))),
            (
                "/propagate",
                Arc::new(gdl.with_evaluator(Evaluator::Propagate)),
            ),
        ]
    } else {
        vec![("", gdl.clone())]
    };
    let kinds: Vec<(String, Playouts, &Arc<Gdl>)> =
        [Playouts::Random, Playouts::Mast, Playouts::Nst]
            .into_iter()
            .flat_map(|k| {
                models
                    .iter()
                    .map(move |(name, m)| (format!("{k:?}{name}"), k, m))
            })
            .collect();
    let mut rates: Vec<Vec<f64>> = vec![Vec::new(); kinds.len()];
    let start = gdl.initial_state();
    let mut timer = Timer::new(None, None, 1);
    let walks = Walks::play(&gdl, &start, WALKS, &mut seeded(Some(0)), &mut timer);
    let found = Detection::of(&walks);
    println!("{}", cutoff.describe(&found));
    let cut = cutoff.cut(&found);
    let (evaluation, line) = heuristic::find(
        &gdl,
        &start,
        heuristics,
        0.0,
        &mut seeded(Some(0)),
        &mut timer,
    );
    println!("{line}");
    let evaluate = evaluation.map(|e| (heuristic::STEPS, e));
    for round in 1..=rounds {
        let mut line = format!("round {round}:");
        for ((name, kind, model), rates) in kinds.iter().zip(&mut rates) {
            let mut tree = Mcts::new(Arc::clone(model), Some(1), 256)
                .with_playouts(*kind)
                .with_rave(rave);
            tree.set_cutoff(cut);
            tree.set_heuristic(evaluate.clone());
            let budget = Budget {
                deadline: Some(Instant::now() + time),
                ..Budget::default()
            };
            let c = tree.search_within(&start, 0, budget);
            let rate = c.playouts as f64 / c.elapsed.as_secs_f64();
            rates.push(rate);
            line += &format!(" {name} {rate:.0} playouts/s ({} iterations)", c.iterations);
        }
        println!("{line}");
    }
    let mut line = String::from("median playouts/s:");
    for ((name, _, _), rates) in kinds.iter().zip(&mut rates) {
        line += &format!(" {name} {:.0}", median(rates));
    }
    println!("{line}");
    Ok(())
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}
