"""`ggp-cluster [OPTIONS] tournament TOURNAMENT-OPTIONS`: a `ggp-player tournament` whose
games run on a Dask cluster."""

from __future__ import annotations

import argparse
import os
import shutil
import sys

from distributed import Client

from .driver import DriverError, Tournament, local_cluster, play

USAGE = "ggp-cluster [OPTIONS] tournament [ggp-player tournament options]"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ggp-cluster",
        usage=USAGE,
        description="Play a ggp-player tournament on a Dask cluster, one task per game: "
        "a LocalCluster on this machine unless --scheduler is given. Everything after "
        "the word 'tournament' goes to 'ggp-player tournament'.",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="join this running Dask scheduler instead of starting a LocalCluster: its "
        "address (tcp://10.0.0.1:8786) or its --scheduler-file; its workers need "
        "--resources cores=N",
    )
    p.add_argument(
        "--workers", type=int, default=1, help="LocalCluster: worker processes (default 1)"
    )
    p.add_argument(
        "--cores-per-worker",
        type=int,
        help="LocalCluster: cores each worker offers (default: this machine's cores "
        "shared among the workers, at least one game's worth)",
    )
    p.add_argument(
        "--player-threads",
        type=int,
        default=1,
        help="threads each player searches on: a game takes twice as many cores (default 1)",
    )
    p.add_argument(
        "--binary",
        help="the ggp-player binary, on a path every worker sees "
        "(default: $GGP_PLAYER_BIN, else ggp-player on PATH)",
    )
    return p


def find_binary(given: str | None) -> str:
    path = given or os.environ.get("GGP_PLAYER_BIN") or shutil.which("ggp-player")
    if not path or not os.path.isfile(path):
        raise DriverError(
            f"no ggp-player binary{f' at {path}' if path else ''}: "
            "give --binary or set GGP_PLAYER_BIN"
        )
    return os.path.abspath(path)


def connect(scheduler: str) -> Client:
    """A client of the scheduler at an address, or of the one a scheduler file names."""
    if os.path.isfile(scheduler):
        return Client(scheduler_file=scheduler)
    return Client(scheduler)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = parser()
    if "tournament" not in argv:
        p.error("the word 'tournament' and its options are missing")
    split = argv.index("tournament")
    opts = p.parse_args(argv[:split])
    if opts.workers < 1 or opts.player_threads < 1:
        p.error("--workers and --player-threads must be at least 1")
    try:
        tournament = Tournament(find_binary(opts.binary), argv[split + 1 :])
        if opts.scheduler:
            with connect(opts.scheduler) as client:
                play(client, tournament, opts.player_threads)
        else:
            cluster = local_cluster(opts.workers, opts.cores_per_worker, opts.player_threads)
            with cluster, Client(cluster) as client:
                play(client, tournament, opts.player_threads)
    except DriverError as error:
        print(f"ggp-cluster: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: finished games are saved; run again with --resume", file=sys.stderr)
        return 130
    return tournament.report()
