"""Job-level proof-number search against the single-machine solver: the same values on
small boards with budgets small enough that the tree must grow, the proof and disproof
numbers of the tree itself, and a killed driver resumed from its journal without
running again a job it had finished."""

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from distributed import Client

from ggp_cluster.driver import local_cluster
from ggp_cluster.pns import INF, Journal, JournalError, Problem, Tree
from ggp_cluster.solve import JOB_CORES, Jobs, known_lines, solve

# Board, variant, a leaf's first budget and the tree's plies: each budget is far below
# what the board's start takes, so the root is split and its children too.
BOARDS = [
    ("4x5", "standard", 262144, 1),  # a loss for white (black wins)
    ("3x6", "standard", 65536, 2),  # a win for white
    ("4x5", "course", 4096, 2),  # a draw: the second question is needed
]


@pytest.fixture(scope="module")
def client():
    with local_cluster(workers=2, cores_per_worker=1, task_cores=JOB_CORES) as cluster:
        with Client(cluster) as client:
            yield client


def single_machine(binary: str, board: str, variant: str) -> dict:
    done = subprocess.run([binary, "solve", board, "--variant", variant, "--threads", "1",
                           "--hash-mb", "64", "--json"], capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout)


def journal_lines(path: Path) -> list[dict]:
    """The journal's whole lines (a killed driver may leave its last one cut)."""
    lines = []
    for line in path.read_text().splitlines():
        try:
            lines.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    return lines


def finished_jobs(path: Path) -> int:
    return sum("job" in line for line in journal_lines(path))


@pytest.mark.parametrize("board,variant,budget,plies", BOARDS)
def test_the_job_level_value_is_the_single_machine_solvers(
    binary, client, tmp_path, board, variant, budget, plies
):
    alone = single_machine(binary, board, variant)
    assert alone["nodes"] > budget, "the board must not fit in one job"
    problem = Problem(board, variant, "breakthrough", [], plies, budget)
    journal = Journal(tmp_path / "solve.jsonl", problem, resume=False)
    answer = solve(client, Jobs(binary, problem, hash_mb=16, cwd=str(tmp_path)), journal,
                   log=open(os.devnull, "w"))
    journal.close()
    assert (answer["value"], answer["to_move"]) == (alone["value"], alone["to_move"])
    lines = journal_lines(tmp_path / "solve.jsonl")
    deepest = max(len(line["path"]) for line in lines[1:])
    assert deepest == plies, "the tree grew to its plies"
    assert answer["jobs"] == sum("job" in line for line in lines) > 1 + len(alone["moves"]) // 2
    workers = {line["job"]["worker"] for line in lines[1:] if "job" in line}
    assert len(workers) == 2


def test_jobs_given_what_the_others_proved_search_fewer_nodes(binary, tmp_path, monkeypatch):
    problem = Problem("4x5", "course", "breakthrough", [], 2, 4096)

    def run(client: Client, name: str) -> dict:
        journal = Journal(tmp_path / f"{name}.jsonl", problem, resume=False)
        answer = solve(client, Jobs(binary, problem, hash_mb=16, cwd=str(tmp_path)), journal,
                       log=open(os.devnull, "w"))
        journal.close()
        return answer

    # One worker: the jobs run in one order, so the nodes are the same every time.
    with local_cluster(workers=1, cores_per_worker=1, task_cores=JOB_CORES) as cluster:
        with Client(cluster) as client:
            shared = run(client, "shared")
            # The same solve whose jobs are told nothing (the tree itself still takes
            # in what they report).
            monkeypatch.setattr(Tree, "known_positions", lambda self: {})
            alone = run(client, "alone")
    assert shared["value"] == alone["value"] == "draw"
    # Measured: 166 k nodes against 308 k (4x5 standard took 8.0 M against 9.6 M).
    assert shared["job_nodes"] < 0.9 * alone["job_nodes"], (shared, alone)


def report(value: str, moves=("a", "b"), budget=100, children=None) -> dict:
    line = {"value": value, "nodes": budget, "seconds": 0.1, "moves": list(moves),
            "budget": budget, "to_move": "white"}
    if children is not None:
        line["children"] = children
    return line


def test_proof_numbers_pick_the_cheapest_leaf_and_settle_the_root():
    tree = Tree(Problem("5x5", None, "breakthrough", [], 2, 100))
    tree.record(tree.root, report("unknown"))
    assert tree.next_budget(tree.root) is None, "within the plies a leaf is split"
    tree.expand(tree.root)
    a, b = tree.root.children
    # The attacker needs one child proven: a, once rerun, costs more than b.
    tree.record(a, report("unknown", budget=400))
    assert (a.pn, a.dn, b.pn) == (4, 4, 1)
    assert tree.select() is b
    b.running = True
    assert tree.select() is a, "a running leaf is passed over"
    b.running = False
    # b is a win for its side to move (the defender): a loss for the attacker.
    tree.record(b, report("win"))
    assert (b.pn, b.dn) == (INF, 0)
    assert tree.root.pn == 4 and tree.answer() is None
    tree.record(a, report("loss"))  # the defender loses after a: the attacker wins
    assert tree.answer() == "win"


def test_a_position_reached_twice_is_solved_once_and_proven_children_not_at_all():
    tree = Tree(Problem("5x5", None, "breakthrough", [], 2, 100))
    # After a and c the defender is in one position (key 1); after b the job proved the
    # defender at least draws: b is no win for the attacker.
    tree.record(tree.root, report("unknown", moves="abc", children=[
        {"key": "1"}, {"key": "2", "at_least": "draw"}, {"key": "1"}]))
    tree.expand(tree.root)
    a, b, c = tree.root.children
    assert c.twin is a and a.twin is None and b.twin is None
    assert (b.pn, b.dn) == (INF, 0), "b is settled without a job"
    assert tree.root.dn == 1 + 1, "a and c are one position: c adds a's number again"
    a.running = True
    assert tree.select() is None, "c is a, which is running: nothing else to run"
    a.running = False
    # The defender's job at a, unknown, proved the attacker wins after y: two of its
    # three replies are left open.
    tree.record(a, report("unknown", moves="xyz", budget=400, children=[
        {"key": "3"}, {"key": "4", "at_least": "win"}, {"key": "5"}]))
    assert (a.pn, a.dn) == (8, 4), "two open replies, each of a's effort, to prove"
    assert (c.pn, c.dn) == (a.pn, a.dn)
    tree.record(a, report("loss"))  # the defender loses at a: so at c too
    assert (c.pn, c.dn) == (0, INF) and tree.answer() == "win"


def test_what_any_job_proves_is_known_to_the_tree_and_passed_to_every_job():
    tree = Tree(Problem("5x5", None, "breakthrough", [], 2, 100))
    tree.record(tree.root, report("unknown", moves="ab", children=[{"key": "1"}, {"key": "2"}]))
    tree.expand(tree.root)
    a, b = tree.root.children
    # a's job ran out, having proven that after its move y the attacker (to move there)
    # at least draws, and further down, position 2 a win for its side to move (the
    # defender): b, the leaf of that position, is settled without a job of its own.
    tree.record(a, report("unknown", moves="xy", budget=400, children=[
        {"key": "3"}, {"key": "4", "at_least": "draw"}], ) | {
        "key": "1", "proven": [{"key": "2", "at_least": "win"}]})
    assert tree.known == {"4": (1, 2), "2": (2, 2)}
    assert tree.apply_known(b) and (b.pn, b.dn) == (INF, 0)
    # a's rerun is given it all; once a's position is proven a loss for the defender,
    # that too (and the root, settled by the tree, is a win for its side to move).
    assert tree.known_positions() == {"4": (1, 2), "2": (2, 2)}
    tree.record(a, report("loss", moves="xy") | {"key": "1"})
    assert tree.answer() == "win"
    assert tree.known_positions()["1"] == (0, 0)
    lines = [json.loads(line) for line in known_lines({"1": (0, 0), "4": (1, 2)}).split()]
    assert lines == [{"key": "1", "at_most": "loss"}, {"key": "4", "at_least": "draw"}]


def test_a_disproved_win_with_a_draw_seen_asks_for_the_draw():
    tree = Tree(Problem("5x5", None, "breakthrough", [], 1, 100))
    tree.record(tree.root, report("unknown"))
    tree.expand(tree.root)
    a, b = tree.root.children
    tree.record(a, report("draw"))
    assert tree.answer() is None
    tree.record(b, report("draw"))
    assert tree.answer() == "draw" and tree.target == "draw"
    deeper = Tree(Problem("5x5", None, "breakthrough", [], 1, 100))
    deeper.record(deeper.root, report("unknown"))
    deeper.expand(deeper.root)
    first = deeper.root.children[0]
    deeper.record(first, report("unknown"))
    assert deeper.next_budget(first) == 400, "beyond the plies a leaf's budget grows"
    for child in deeper.root.children:
        deeper.record(child, report("win"))
    assert deeper.answer() == "loss", "no draw seen: not winning is losing"


def ggp_cluster(args: list[str], cwd: Path, binary: str, **popen) -> subprocess.Popen:
    env = dict(os.environ, GGP_PLAYER_BIN=binary)
    return subprocess.Popen([sys.executable, "-m", "ggp_cluster", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


def test_a_killed_driver_resumes_without_running_finished_jobs_again(binary, tmp_path):
    args = ["--workers", "2", "--cores-per-worker", "1", "solve", "4x5", "--variant", "course",
            "--nodes", "4096", "--plies", "2", "--hash-mb", "16", "--checkpoint", "s.jsonl"]
    path = tmp_path / "s.jsonl"
    driver = ggp_cluster(args, tmp_path, binary, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not path.exists() or finished_jobs(path) < 8):
        time.sleep(0.05)
    # The driver, its workers and their jobs all die at once, as with a lost machine.
    os.killpg(driver.pid, signal.SIGKILL)
    driver.wait()
    finished = finished_jobs(path)
    assert finished >= 8
    again = ggp_cluster(args, tmp_path, binary)
    _, err = again.communicate(timeout=60)
    assert again.returncode == 2 and "--resume" in err
    resumed = ggp_cluster([*args, "--resume"], tmp_path, binary)
    out, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err
    answer = json.loads(out)
    assert (answer["value"], answer["to_move"]) == ("draw", "white")
    assert answer["resumed_jobs"] == finished
    runs = Counter((tuple(line["path"]), line["job"]["budget"])
                   for line in journal_lines(path)[1:] if "job" in line)
    assert runs.most_common(1)[0][1] == 1, "a finished job was run again"
    assert answer["jobs"] == sum(runs.values())


def test_a_journal_of_another_solve_is_refused(tmp_path):
    path = tmp_path / "s.jsonl"
    Journal(path, Problem("4x5", "course", "breakthrough", [], 2, 4096), False).close()
    with pytest.raises(JournalError, match="another solve"):
        Journal(path, Problem("5x5", "course", "breakthrough", [], 2, 4096), True)


def test_a_line_cut_by_a_killed_driver_is_dropped_and_a_whole_one_kept(tmp_path):
    path = tmp_path / "s.jsonl"
    problem = Problem("4x5", "course", "breakthrough", [], 2, 4096)
    journal = Journal(path, problem, False)
    journal.job(Tree(problem).root, report("unknown"))
    journal.close()
    whole = path.read_text()
    path.write_text(whole + '{"path": ["a"], "jo')
    assert len(Journal(path, problem, True).lines) == 1
    assert path.read_text() == whole
    path.write_text(whole + '{"path": [], "expand": true}')
    assert len(Journal(path, problem, True).lines) == 2
    assert path.read_text().endswith("true}\n")
    path.write_text(whole + "not json\n" + whole.splitlines()[1] + "\n")
    with pytest.raises(JournalError, match="s.jsonl:3 is not JSON"):
        Journal(path, problem, True)
