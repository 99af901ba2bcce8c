"""Job-level proof-number search on a Dask cluster: the driver keeps the tree
(`pns.Tree`) and the journal, and runs each leaf as a `ggp-player solve --json` job on
a worker, one core per job."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from typing import TextIO

from distributed import Client, Future, get_worker, wait

from .driver import RESOURCE, DriverError, check_workers
from .pns import Journal, Node, Problem, Tree, walk_nodes

# A job searches on one thread, so it takes one core.
JOB_CORES = 1


@dataclass
class Jobs:
    """How each leaf's job runs: the binary, each job's table and time cap, where."""

    binary: str
    problem: Problem
    hash_mb: int = 256
    job_time: float = 1e6
    cwd: str = "."

    def argv(self, node: Node, budget: int) -> list[str]:
        p = self.problem
        argv = ["solve", p.board, "--game", p.game]
        if p.variant:
            argv += ["--variant", p.variant]
        for move in [*p.after, *node.path]:
            argv += ["--after", move]
        return argv + ["--nodes", str(budget), "--time", str(self.job_time), "--threads", "1",
                       "--hash-mb", str(self.hash_mb), "--json"]


def known_lines(known: dict[str, tuple[int, int]]) -> str:
    """What is proven, as `ggp-player solve --known` reads it: one child report a line."""
    names = ("loss", "draw", "win")
    lines = []
    for key, (least, most) in known.items():
        line = {"key": key}
        if least > 0:
            line["at_least"] = names[least]
        if most < 2:
            line["at_most"] = names[most]
        lines.append(json.dumps(line, separators=(",", ":")))
    return "\n".join(lines) + "\n"


def run_job(binary: str, argv: list[str], cwd: str, known: str = "") -> dict:
    """The task: one solve on this worker, given the positions proven so far (`known`,
    in a file of the worker's own); its JSON report, naming the worker."""
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", prefix="ggp-known-") as file:
        if known.strip():
            file.write(known)
            file.flush()
            argv = [*argv, "--known", file.name]
        done = subprocess.run([binary, *argv], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().removeprefix("error: ") or f"{binary} failed")
    report = json.loads(done.stdout.strip().splitlines()[-1])
    report["worker"] = get_worker().address
    return report


def job_slots(client: Client) -> int:
    """Jobs the cluster runs at once: the cores its workers offer (at least one, so that
    jobs wait for workers still to come)."""
    workers = client.scheduler_info(n_workers=-1)["workers"].values()
    return max(1, sum(int(w.get("resources", {}).get(RESOURCE, 0)) for w in workers))


def solve(
    client: Client,
    jobs: Jobs,
    journal: Journal,
    log: TextIO = sys.stderr,
    progress_every: float = 1.0,
) -> dict:
    """Runs jobs on the client's cluster until the root's value is known; returns the
    answer (see `summary`). Jobs already in the journal are not run again."""
    check_workers(client, JOB_CORES)
    tree = Tree(jobs.problem)
    resumed = journal.replay(tree)
    if resumed:
        print(f"resumed: {resumed} jobs from {journal.path}", file=log)
    run = uuid.uuid4().hex[:8]
    running: dict[Future, tuple[Node, int]] = {}
    start, cpu = time.monotonic(), time.process_time()
    slots, counted, shown, submitted = 1, 0.0, 0.0, 0
    try:
        while (value := tree.answer()) is None:
            now = time.monotonic()
            if now - counted > 2:
                slots, counted = job_slots(client), now
            while len(running) < slots:
                leaf = tree.select()
                if leaf is None:
                    break
                budget = tree.next_budget(leaf)
                if budget is None:
                    tree.expand(leaf)
                    journal.expansion(leaf)
                    continue
                if tree.apply_known(leaf):
                    continue
                leaf.running = True
                submitted += 1
                known = known_lines(tree.known_positions())
                future = client.submit(run_job, jobs.binary, jobs.argv(leaf, budget), jobs.cwd,
                                       known,
                                       key=f"ggp-solve-{run}-{submitted}",
                                       resources={RESOURCE: JOB_CORES}, pure=False)
                running[future] = (leaf, budget)
            if not running:
                raise DriverError("no leaf left to run and no value: the tree is inconsistent")
            if time.monotonic() - shown >= progress_every:
                shown = time.monotonic()
                print(progress(tree, len(running), shown - start), file=log, flush=True)
            done, _ = wait(list(running), return_when="FIRST_COMPLETED")
            for future in done:
                leaf, budget = running.pop(future)
                leaf.running = False
                try:
                    report = future.result()
                except Exception as error:
                    raise DriverError(f"a job failed: {error}") from error
                report["budget"] = budget
                journal.job(leaf, report)
                tree.record(leaf, report)
            stale = [f for f, (leaf, _) in running.items() if tree.under_settled(leaf)]
            for future in stale:
                running.pop(future)[0].running = False
            if stale:
                client.cancel(stale)
    finally:
        if running:
            client.cancel(list(running))
    answer = summary(tree, value, time.monotonic() - start, time.process_time() - cpu, resumed)
    print(progress(tree, 0, time.monotonic() - start), file=log, flush=True)
    return answer


def progress(tree: Tree, running: int, elapsed: float) -> str:
    root = tree.root
    largest = max(n.budget for n in walk_nodes(tree.root))
    return (
        f"{elapsed:.0f} s: {tree.jobs} jobs ({running} running, {tree.job_nodes / 1e6:.1f} M nodes), "
        f"tree of {tree.size()} positions ({tree.twins()} standing for another), question: can the side to move {tree.target}? "
        f"pn {fmt(root.pn)} dn {fmt(root.dn)}, largest budget spent {largest}"
    )


def fmt(x: float) -> str:
    return "inf" if x == float("inf") else f"{x:g}"


def summary(tree: Tree, value: str, seconds: float, driver_cpu: float, resumed: int) -> dict:
    """The answer: the root's value for the side to move there, and what it took."""
    p = tree.problem
    return {
        "board": p.board,
        "variant": p.variant,
        "after": p.after,
        "to_move": tree.to_move,
        "value": value,
        "jobs": tree.jobs,
        "resumed_jobs": resumed,
        "job_nodes": tree.job_nodes,
        "job_seconds": round(tree.job_seconds, 3),
        "seconds": round(seconds, 3),
        "driver_cpu_seconds": round(driver_cpu, 3),
        "tree_positions": tree.size(),
        "twin_positions": tree.twins(),
    }


def job_sizes(journal_lines: list[dict]) -> dict:
    """Quantiles of the jobs' nodes and seconds in a journal (for measurements)."""
    jobs = [line["job"] for line in journal_lines if "job" in line]
    if len(jobs) < 2:
        return {"jobs": len(jobs)}
    out = {"jobs": len(jobs)}
    for name in ("nodes", "seconds"):
        values = sorted(j[name] for j in jobs)
        q = statistics.quantiles(values, n=10)
        out[name] = {"min": values[0], "p10": q[0], "median": statistics.median(values),
                     "p90": q[-1], "max": values[-1], "sum": sum(values)}
    return out
