"""`ggp-cluster [OPTIONS] tournament TOURNAMENT-OPTIONS`: a `ggp-player tournament` whose
games run on a Dask cluster; `ggp-cluster [OPTIONS] solve SIZE [SOLVE-OPTIONS]`: a
job-level proof-number search whose leaves run as `ggp-player solve` jobs on it."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from contextlib import contextmanager

from distributed import Client

from .driver import DriverError, Tournament, local_cluster, play
from .pns import Journal, JournalError, Problem
from .solve import JOB_CORES, Jobs, job_sizes, solve

USAGE = (
    "ggp-cluster [OPTIONS] tournament [ggp-player tournament options]\n"
    "       ggp-cluster [OPTIONS] solve SIZE [solve options: solve -h]"
)
COMMANDS = ("tournament", "solve")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ggp-cluster",
        usage=USAGE,
        description="Play a ggp-player tournament on a Dask cluster, one task per game, "
        "or solve a board by job-level proof-number search, one task per ggp-player "
        "solve job: on a LocalCluster on this machine unless --scheduler is given. "
        "Everything after the word 'tournament' goes to 'ggp-player tournament'; "
        "'solve -h' lists the solve's options.",
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
        "shared among the workers, at least one task's worth)",
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


def solve_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ggp-cluster [OPTIONS] solve",
        description="Prove a board's value by job-level proof-number search: a tree over "
        "the first --plies moves whose leaves are 'ggp-player solve --nodes B --json' jobs "
        "on the cluster's workers (one core each). A leaf whose job runs out of nodes is "
        "split into its children within --plies, deeper it is run again with four times "
        "the budget; proof and disproof numbers choose the leaf. Every finished job is appended "
        "to --checkpoint, from which --resume goes on.",
    )
    p.add_argument("size", metavar="SIZE", help="board size, WIDTHxHEIGHT (e.g. 5x6)")
    p.add_argument("--game", default="breakthrough", help="the game (default breakthrough)")
    p.add_argument("--variant", help="rules variant (default: the game's first)")
    p.add_argument("--after", action="append", default=[], metavar="MOVE",
                   help="solve the position after these moves (repeat, in order)")
    p.add_argument("--plies", type=int, default=4,
                   help="depth of the tree: leaves this far below the root are rerun with "
                   "four times the budget instead of split (default 4)")
    p.add_argument("--nodes", type=int, default=1 << 20, metavar="B",
                   help="a leaf's first budget in nodes (default 1048576)")
    p.add_argument("--job-time", type=float, default=1e6, metavar="S",
                   help="seconds after which a job gives up whatever its budget "
                   "(default 1000000: the budget alone decides)")
    p.add_argument("--hash-mb", type=int, default=256,
                   help="each job's table in MiB: a worker needs this much memory per core "
                   "(default 256)")
    p.add_argument("--checkpoint", metavar="FILE",
                   help="the solve's journal, one JSON line per job (default "
                   "solve-SIZE-VARIANT.jsonl)")
    p.add_argument("--resume", action="store_true",
                   help="go on with the solve in --checkpoint, running only what it lacks")
    return p


@contextmanager
def cluster_client(opts, task_cores: int):
    """A client of the scheduler given, else of a LocalCluster started here."""
    if opts.scheduler:
        with connect(opts.scheduler) as client:
            yield client
    else:
        cluster = local_cluster(opts.workers, opts.cores_per_worker, task_cores)
        with cluster, Client(cluster) as client:
            yield client


def run_solve(opts, argv: list[str]) -> int:
    s = solve_parser().parse_args(argv)
    if s.plies < 0 or s.nodes < 1 or s.hash_mb < 1 or s.job_time <= 0:
        solve_parser().error("--plies must be 0 or more; --nodes, --hash-mb, --job-time above 0")
    problem = Problem(board=s.size, variant=s.variant, game=s.game, after=s.after,
                      plies=s.plies, first_budget=s.nodes)
    jobs = Jobs(find_binary(opts.binary), problem, hash_mb=s.hash_mb, job_time=s.job_time,
                cwd=os.getcwd())
    path = s.checkpoint or f"solve-{s.size}-{s.variant or 'default'}.jsonl"
    journal = Journal(path, problem, s.resume)
    try:
        with cluster_client(opts, JOB_CORES) as client:
            answer = solve(client, jobs, journal)
    finally:
        journal.close()
    sizes = job_sizes(journal.read())
    if "nodes" in sizes:
        n = sizes["nodes"]
        print(f"job sizes: median {n['median']:.0f} nodes, 90% under {n['p90']:.0f}, "
              f"largest {n['max']}", file=sys.stderr)
    print(json.dumps(answer))
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = parser()
    split = next((i for i, word in enumerate(argv) if word in COMMANDS), None)
    if split is None:
        p.error("the command, 'tournament' or 'solve', and its options are missing")
    opts = p.parse_args(argv[:split])
    if opts.workers < 1 or opts.player_threads < 1:
        p.error("--workers and --player-threads must be at least 1")
    try:
        if argv[split] == "solve":
            return run_solve(opts, argv[split + 1 :])
        tournament = Tournament(find_binary(opts.binary), argv[split + 1 :])
        with cluster_client(opts, 2 * opts.player_threads) as client:
            play(client, tournament, opts.player_threads)
    except (DriverError, JournalError) as error:
        print(f"ggp-cluster: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: what is finished is saved; run again with --resume", file=sys.stderr)
        return 130
    return tournament.report()
