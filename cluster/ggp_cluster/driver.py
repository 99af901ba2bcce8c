"""Plan, submit one task per game, append each record as it arrives, stop on an SPRT."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from distributed import Client, LocalCluster, as_completed, get_worker

# The worker resource a game takes: cores, two players' worth of threads.
RESOURCE = "cores"


class DriverError(Exception):
    """Something the user must fix: a refused tournament, a game that failed, no worker."""


def games_at_once(cores: int, player_threads: int = 1) -> int:
    """Games a worker with `cores` cores plays at once when each of a game's two players
    searches on `player_threads` threads."""
    return cores // (2 * player_threads)


@dataclass
class Tournament:
    """`ggp-player tournament` with the options `args`, run in `cwd` (so that relative
    paths in the options mean the same on every worker: a shared path)."""

    binary: str
    args: list[str]
    cwd: str = field(default_factory=os.getcwd)

    def command(self, *extra: str) -> list[str]:
        return [self.binary, "tournament", *self.args, *extra]

    @property
    def results(self) -> Path:
        """The results file the options name (the binary's default otherwise)."""
        path = "results.jsonl"
        for i, arg in enumerate(self.args):
            if arg == "--results" and i + 1 < len(self.args):
                path = self.args[i + 1]
            elif arg.startswith("--results="):
                path = arg.split("=", 1)[1]
        return Path(self.cwd, path)

    @property
    def sprt(self) -> bool:
        return any(a == "--sprt" or a.startswith("--sprt=") for a in self.args)

    def plan(self, resume: bool = False) -> list[dict]:
        """The games still to play, as `--plan` prints them; none once the SPRT is
        decided."""
        extra = ["--plan"]
        if resume and "--resume" not in self.args:
            extra.append("--resume")
        done = subprocess.run(
            self.command(*extra), cwd=self.cwd, capture_output=True, text=True
        )
        if done.returncode != 0:
            raise DriverError(done.stderr.strip().removeprefix("error: ") or f"{self.binary} failed")
        return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]

    def report(self) -> int:
        """Prints the binary's table (and SPRT verdict) of the results file: a resumed
        tournament with nothing left to play. Returns the binary's exit code."""
        extra = [] if "--resume" in self.args else ["--resume"]
        return subprocess.run(self.command(*extra), cwd=self.cwd).returncode


def play_game(binary: str, args: list[str], game: int, cwd: str) -> dict:
    """The task: plays game `game` of the schedule with the binary on this worker and
    returns its record, naming the worker."""
    done = subprocess.run(
        [binary, "tournament", *args, "--only-game", str(game)],
        cwd=cwd,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"game {game}: {done.stderr.strip().removeprefix('error: ')}")
    record = json.loads(done.stdout.strip().splitlines()[-1])
    record["worker"] = get_worker().address
    return record


def local_cluster(
    workers: int = 1, cores_per_worker: int | None = None, task_cores: int = 2
) -> LocalCluster:
    """Worker processes on this machine sharing its cores; each gets at least the cores
    one task needs (a game: two players' threads; a solve job: one)."""
    cores = cores_per_worker or max(task_cores, (os.cpu_count() or 1) // workers)
    if cores < task_cores:
        raise DriverError(
            f"a task takes {task_cores} cores: --cores-per-worker {cores} is too few"
        )
    return LocalCluster(
        n_workers=workers,
        threads_per_worker=cores // task_cores,
        processes=True,
        resources={RESOURCE: cores},
        dashboard_address=None,
        silence_logs=logging.ERROR,
    )


def check_workers(client: Client, need: int) -> None:
    """Refuses a cluster whose workers, if it has any yet, cannot run a single task of
    `need` cores (a game, a solve job)."""
    workers = client.scheduler_info(n_workers=-1)["workers"]
    fit = [w for w in workers.values() if w.get("resources", {}).get(RESOURCE, 0) >= need]
    if workers and not fit:
        raise DriverError(
            f"no worker offers the {need} cores a task takes: start each worker with "
            f"--resources {RESOURCE}=N, N being its cores (see docs/cluster.md)"
        )


def seats(record: dict) -> tuple[str, str]:
    """The players of a record's (or a planned game's) first and second role: `players`
    is keyed by the game's role names, in the order of `roles`; records written before
    that have `white` and `black` for the first and the second role."""
    if "players" in record:
        players = record["players"]
        roles = record.get("roles") or list(players)
        return players[roles[0]], players[roles[1]]
    return record["white"], record["black"]


def play(
    client: Client,
    tournament: Tournament,
    player_threads: int = 1,
    log: TextIO = sys.stderr,
) -> int:
    """Plays the games still missing from the results file on the client's cluster,
    appending each record as it arrives; returns how many were played. A game whose
    worker is lost is rerun by Dask and recorded once; once an SPRT is decided, the
    games not yet finished are cancelled."""
    need = 2 * player_threads
    plan = tournament.plan()
    if not plan:
        return 0
    check_workers(client, need)
    run = uuid.uuid4().hex[:8]
    futures = {
        client.submit(
            play_game,
            tournament.binary,
            tournament.args,
            g["game"],
            tournament.cwd,
            key=f"ggp-game-{run}-{g['game']}",
            resources={RESOURCE: need},
            pure=False,
        ): g
        for g in plan
    }
    recorded: set[int] = set()
    with open(tournament.results, "a", encoding="utf-8") as out:
        for future in as_completed(futures):
            game = futures[future]["game"]
            try:
                record = future.result()
            except Exception as error:
                client.cancel(list(futures))
                raise DriverError(str(error)) from error
            if game in recorded:
                continue
            recorded.add(game)
            out.write(json.dumps(record, separators=(",", ":")) + "\n")
            out.flush()
            print(
                f"{len(recorded)}/{len(plan)} games: {' - '.join(seats(record))} "
                f"{record['goals'][0]}-{record['goals'][1]} on {record['worker']}",
                file=log,
            )
            if tournament.sprt and not tournament.plan(resume=True):
                left = [f for f in futures if not f.done()]
                client.cancel(left)
                print(f"SPRT decided: {len(left)} games cancelled", file=log)
                break
    return len(recorded)
