"""The driver on a LocalCluster of two workers against `ggp-player tournament` itself:
the same games and report, no game lost or counted twice when a worker dies, and a
killed driver's tournament finished by --resume."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from distributed import Client

from ggp_cluster.driver import Tournament, games_at_once, local_cluster, play, seats

# Twenty fast games between in-process agents.
FAST = ["--player", "r=agent:random", "--player", "g=agent:greedy", "--sizes", "4x5",
        "--playclocks", "0.05", "--games", "20"]
# Games of a second or more, so that a worker or the driver can be killed mid-game.
SLOW = ["--player", "m=agent:mcts", "--player", "r=agent:random", "--sizes", "5x5",
        "--playclocks", "0.3"]


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def pairings(path: Path) -> Counter:
    return Counter((*seats(r), r["size"], r["play_clock"]) for r in records(path))


def game_numbers(path: Path) -> list[int]:
    """The schedule number of each record, from its id (`ref-STAMP-K`)."""
    return sorted(int(r["id"].rsplit("-", 1)[1]) for r in records(path))


def table_shape(report: str) -> list[list[str]]:
    """The report's header and, for each row, its player, opponent, condition, games."""
    lines = report.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("player "))
    rows = [lines[start]]
    for line in lines[start + 1:]:
        if line.startswith("referee overhead") or line.startswith("results:"):
            break
        rows.append(line)
    return [rows[0].split()] + [row.split()[:4] for row in rows[1:]]


def ggp_cluster(args: list[str], cwd: Path, binary: str, **popen) -> subprocess.Popen:
    env = dict(os.environ, GGP_PLAYER_BIN=binary)
    return subprocess.Popen([sys.executable, "-m", "ggp_cluster", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


def test_seats_are_read_from_records_old_and_new():
    new = {"roles": ["black", "white"], "players": {"white": "them", "black": "ours"}}
    assert seats(new) == ("ours", "them")
    assert seats({"white": "ours", "black": "them"}) == ("ours", "them")
    assert seats({"game": 3, "players": {"white": "a", "black": "b"}}) == ("a", "b")


def test_games_at_once_leave_each_player_its_threads():
    assert games_at_once(8) == 4
    assert games_at_once(8, player_threads=2) == 2
    assert games_at_once(3, player_threads=2) == 0


def test_the_cluster_plays_the_same_games_and_reports_alike(binary, tmp_path):
    alone = subprocess.run([binary, "tournament", *FAST, "--results", "alone.jsonl"],
                           cwd=tmp_path, capture_output=True, text=True, check=True)
    driver = ggp_cluster(["--workers", "2", "tournament", *FAST, "--results", "cluster.jsonl"],
                         tmp_path, binary)
    out, err = driver.communicate(timeout=300)
    assert driver.returncode == 0, err
    assert len(records(tmp_path / "cluster.jsonl")) == 20
    assert pairings(tmp_path / "cluster.jsonl") == pairings(tmp_path / "alone.jsonl")
    assert game_numbers(tmp_path / "cluster.jsonl") == list(range(20))
    workers = {r["worker"] for r in records(tmp_path / "cluster.jsonl")}
    assert all(w.startswith("tcp://") for w in workers), workers
    assert table_shape(out) == table_shape(alone.stdout)
    assert out.splitlines()[-1] == "results: cluster.jsonl"


def test_a_worker_killed_mid_game_loses_no_game_and_counts_none_twice(binary, tmp_path):
    tournament = Tournament(binary, [*SLOW, "--games", "8", "--results", "out.jsonl"],
                            str(tmp_path))
    expected = {(*seats(g), g["size"], g["play_clock"]) for g in tournament.plan()}
    with local_cluster(workers=2, cores_per_worker=2) as cluster, Client(cluster) as client:
        killed = {}

        def kill_a_busy_worker():
            while not killed:
                busy = [w for w, keys in client.processing().items() if keys]
                if busy and (tmp_path / "out.jsonl").exists():
                    pids = client.run(os.getpid, workers=[busy[0]])
                    killed["worker"] = busy[0]
                    killed["games"] = {k.rsplit("-", 1)[1] for k in client.processing()[busy[0]]}
                    os.kill(pids[busy[0]], signal.SIGKILL)
                time.sleep(0.2)

        killer = threading.Thread(target=kill_a_busy_worker, daemon=True)
        killer.start()
        played = play(client, tournament, log=open(os.devnull, "w"))
        killer.join(timeout=10)
    assert killed, "no worker was killed"
    assert played == 8
    assert game_numbers(tmp_path / "out.jsonl") == list(range(8))
    assert set(pairings(tmp_path / "out.jsonl")) == expected
    assert sum(pairings(tmp_path / "out.jsonl").values()) == 8
    rerun = [r for r in records(tmp_path / "out.jsonl") if r["id"].rsplit("-", 1)[1] in killed["games"]]
    assert rerun and all(r["worker"] != killed["worker"] for r in rerun)


def test_resume_finishes_what_a_killed_driver_left(binary, tmp_path):
    args = ["--workers", "2", "tournament", *SLOW, "--games", "10", "--results", "out.jsonl"]
    results = tmp_path / "out.jsonl"
    driver = ggp_cluster(args, tmp_path, binary, start_new_session=True)
    deadline = time.monotonic() + 240
    while not (results.exists() and records(results)) and time.monotonic() < deadline:
        time.sleep(0.1)
    # The driver, its workers and their games all die at once, as with a lost machine.
    os.killpg(driver.pid, signal.SIGKILL)
    driver.wait()
    before = results.read_text()
    assert 1 <= len(records(results)) < 10
    again = ggp_cluster(args, tmp_path, binary)
    again.communicate(timeout=60)
    assert again.returncode != 0, "a results file with games needs --resume"
    resumed = ggp_cluster([*args, "--resume"], tmp_path, binary)
    out, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err
    assert results.read_text().startswith(before)
    assert Counter(seats(r) for r in records(results)) == {("m", "r"): 5, ("r", "m"): 5}
    assert "m            r            all            10" in out


def test_a_decided_sprt_cancels_the_games_not_yet_played(binary, tmp_path):
    # Wide error rates: decided after a handful of the 400 games.
    args = ["--workers", "2", "tournament", *FAST[:-1], "200", "--sprt=-200,200,0.45,0.45",
            "--results", "sprt.jsonl"]
    driver = ggp_cluster(args, tmp_path, binary)
    out, err = driver.communicate(timeout=300)
    assert driver.returncode == 0, err
    assert "SPRT decided" in err
    played = len(records(tmp_path / "sprt.jsonl"))
    assert 0 < played < 400
    verdict = next(line for line in out.splitlines() if line.startswith("SPRT "))
    assert verdict.endswith("accepted"), verdict
