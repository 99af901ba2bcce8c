//! Players for the referee: a URL of a running GGP player, a command that starts one
//! (e.g. `ggp-player serve --agent random`), which the referee runs on a free port for as
//! long as it needs it and stops afterwards, or an agent of this process
//! (`agent:alphabeta`), which plays any registered game without HTTP.

use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::process::{Child, Command};

use super::client::{self, host_port};
use super::native::Contestant;

/// How long a started player may take before it answers INFO.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(20);
/// How long a player given by its address may take to accept a connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayerSpec {
    /// A player already listening, as `host:port`.
    Url(String),
    /// A command line that starts a player; `--port N` is appended, or `{port}`
    /// in the command is replaced by the port.
    Command(String),
    /// An agent of this process (`agent:random`, `agent:greedy[:EVAL]`, `agent:alphabeta[:EVAL]`,
    /// `agent:minimax[:DEPTH][:EVAL]`, `agent:mcts[:N]`).
    Agent(crate::agent::AgentConfig),
    /// A course program started for every move (`program:COMMAND`), asked in its game's
    /// own protocol.
    Program(String),
}

impl PlayerSpec {
    /// The player of a match on the game itself, unless this is a GGP player.
    pub fn contestant(&self) -> Option<Contestant> {
        match self {
            PlayerSpec::Agent(config) => Some(Contestant::Agent(*config)),
            PlayerSpec::Program(command) => Some(Contestant::Program(command.clone())),
            PlayerSpec::Url(_) | PlayerSpec::Command(_) => None,
        }
    }

    /// `http://host:port` (or `host:port`) is a URL; anything else is a command.
    pub fn parse(s: &str) -> Result<PlayerSpec, String> {
        let s = s.trim();
        if s.is_empty() {
            return Err("empty player: give a URL such as http://127.0.0.1:4001, a command such as 'ggp-player serve', or agent:alphabeta".into());
        }
        if let Some(agent) = super::native::parse_agent(s) {
            return agent.map(PlayerSpec::Agent);
        }
        if let Some(command) = s.strip_prefix("program:") {
            return match command.trim() {
                "" => Err("program: needs the command that runs the program, e.g. program:target/release/loa6".into()),
                command => Ok(PlayerSpec::Program(command.to_owned())),
            };
        }
        if s.starts_with("http://")
            || s.starts_with("https://")
            || !s.contains(char::is_whitespace) && s.contains(':')
        {
            return host_port(s).map(PlayerSpec::Url);
        }
        Ok(PlayerSpec::Command(s.to_string()))
    }
}

/// A player the referee can talk to; a started one is stopped when this is dropped.
pub struct RunningPlayer {
    pub addr: String,
    child: Option<Child>,
}

impl RunningPlayer {
    /// Connects to, or starts, the player. A player given by its address must accept a
    /// connection within `CONNECT_TIMEOUT` (5 s); a started player must answer INFO within
    /// `STARTUP_TIMEOUT` (20 s).
    pub async fn start(spec: &PlayerSpec) -> Result<RunningPlayer, String> {
        match spec {
            PlayerSpec::Url(addr) => {
                reachable(addr).await?;
                Ok(RunningPlayer {
                    addr: addr.clone(),
                    child: None,
                })
            }
            PlayerSpec::Command(cmd) => start_command(cmd).await,
            PlayerSpec::Agent(_) | PlayerSpec::Program(_) => Err(
                "in-process agents (agent:...) and course programs (program:...) play the game itself, without HTTP"
                    .to_owned(),
            ),
        }
    }

    /// Connects to, or starts, each player in turn; those already started are stopped
    /// if one fails.
    pub async fn start_all(specs: &[PlayerSpec]) -> Result<Vec<RunningPlayer>, String> {
        let mut players = Vec::with_capacity(specs.len());
        for spec in specs {
            players.push(RunningPlayer::start(spec).await?);
        }
        Ok(players)
    }

    /// Stops a started player (a URL player is left alone).
    pub async fn stop(mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill().await;
        }
    }
}

async fn start_command(cmd: &str) -> Result<RunningPlayer, String> {
    let port = free_port().map_err(|e| format!("no free port for '{cmd}': {e}"))?;
    let mut words: Vec<String> = if cmd.contains("{port}") {
        cmd.split_whitespace()
            .map(|w| w.replace("{port}", &port.to_string()))
            .collect()
    } else {
        let mut w: Vec<String> = cmd.split_whitespace().map(String::from).collect();
        w.extend(["--port".into(), port.to_string()]);
        w
    };
    // `ggp-player` means this very binary, so that no install is needed.
    if words[0] == "ggp-player"
        && let Ok(exe) = std::env::current_exe()
    {
        words[0] = exe.to_string_lossy().into_owned();
    }
    let mut child = Command::new(&words[0])
        .args(&words[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("could not start '{cmd}': {e}"))?;
    let addr = format!("127.0.0.1:{port}");
    let deadline = Instant::now() + STARTUP_TIMEOUT;
    loop {
        if let Ok(r) = client::exchange(&addr, "(INFO)", Duration::from_secs(1)).await
            && r.status == 200
        {
            return Ok(RunningPlayer {
                addr,
                child: Some(child),
            });
        }
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!(
                "'{cmd}' exited ({status}) before it answered on port {port}"
            ));
        }
        if Instant::now() > deadline {
            let _ = child.kill().await;
            return Err(format!(
                "'{cmd}' did not answer on port {port} within {STARTUP_TIMEOUT:?}"
            ));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Whether a player given by its address is there: a mistyped port would otherwise
/// fault every move of the match, each counted as a move too late, and the match would
/// be scored as if it had been played.
async fn reachable(addr: &str) -> Result<(), String> {
    let connect = tokio::net::TcpStream::connect(addr);
    match tokio::time::timeout(CONNECT_TIMEOUT, connect).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(format!(
            "nobody answers at {addr} ({e}): start the player first, or check its host and port"
        )),
        Err(_) => Err(format!(
            "nobody answers at {addr} within {CONNECT_TIMEOUT:?}: start the player first, or check its host and port"
        )),
    }
}

/// A port that was free a moment ago (the OS picks it).
fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tells_urls_from_commands() {
        assert_eq!(
            PlayerSpec::parse("http://127.0.0.1:4001"),
            Ok(PlayerSpec::Url("127.0.0.1:4001".into()))
        );
        assert_eq!(
            PlayerSpec::parse("localhost:4002"),
            Ok(PlayerSpec::Url("localhost:4002".into()))
        );
        assert_eq!(
            PlayerSpec::parse("ggp-player serve --agent random"),
            Ok(PlayerSpec::Command(
                "ggp-player serve --agent random".into()
            ))
        );
        assert!(PlayerSpec::parse("").is_err());
        assert!(PlayerSpec::parse("http://nohost").is_err());
    }
}
