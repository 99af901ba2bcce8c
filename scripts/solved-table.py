#!/usr/bin/env python3
"""The table of solved Breakthrough boards: docs/solved.md, rebuilt from solve runs.

Every board from 2x4 to 10x10 under both rule variants gets one row: its value for
white, the nodes and time, the solver and the command, or "unsolved within the budget".
Boards go smallest first; each is tried with the solvers named (the alpha-beta solver
by default, on every core; `--solvers alphabeta,dfpn` also tries df-pn on a board the
first left unsolved). A board is not tried when a board no larger in either dimension
was left unsolved (it is assumed harder), and its row says so.

Every result is appended to a JSON-lines file as soon as it is known, so a stopped run
picks up where it was (--results); a solved board's record keeps the line the solve
printed (what scripts/solved-openings.py tables for boards too costly to solve move by
move). A board left unsolved, or not tried, under a smaller
budget than --budget is tried again; delete a line to redo a solved board.

    scripts/solved-table.py [--budget 600] [--binary target/release/ggp-player]
        [--results docs/results/solved.jsonl] [--out docs/solved.md]
        [--variants course,standard] [--sizes 2x4,3x5,...] [--hash-mb 1024]
        [--solvers alphabeta,dfpn]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

from solve_output import line_of

RESULT = re.compile(r"^(\d+x\d+): (win|draw|loss) for white \((\d+) nodes in ([\d.]+) s\)")
WORDS = {"win": "win for white", "draw": "draw", "loss": "win for black"}


def all_sizes():
    sizes = [(w, h) for w in range(2, 11) for h in range(4, 11)]
    return sorted(sizes, key=lambda s: (s[0] * s[1], s[1], s[0]))


def solve(args, size, variant, solver):
    command = [
        "ggp-player", "solve", size, "--variant", variant, "--solver", solver,
        "--time", str(args.budget), "--hash-mb", str(args.hash_mb),
    ]
    began = time.monotonic()
    run = subprocess.run(
        [args.binary] + command[1:], capture_output=True, text=True,
        timeout=args.budget * 2 + 120,
    )
    wall = time.monotonic() - began
    found = RESULT.match(run.stdout)
    if run.returncode == 0 and found:
        return {
            "value": WORDS[found.group(2)],
            "nodes": int(found.group(3)),
            "seconds": float(found.group(4)),
            "solver": solver,
            "command": " ".join(command),
            "line": line_of(run.stdout),
        }
    reason = (run.stderr.strip().splitlines() or ["no output"])[-1]
    print(f"  {solver}: {reason} ({wall:.0f} s)", flush=True)
    return None


def load(path):
    done = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    done[(r["size"], r["variant"])] = r
    return done


def dominated(size, variant, done, budget):
    """A board no larger in either dimension left unsolved within `budget`, if any."""
    w, h = size
    for (s, v), r in done.items():
        sw, sh = map(int, s.split("x"))
        if (v == variant and r["value"] is None and r["budget"] >= budget
                and sw <= w and sh <= h and (sw, sh) != (w, h)):
            return s
    return None


def settled(row, budget):
    """Whether `row` needs no new try at `budget`: solved, or unsolved at no less."""
    return row is not None and (row["value"] is not None or row["budget"] >= budget)


def write_table(args, done):
    lines = [
        "# Solved Breakthrough boards",
        "",
        "The value of each board's start position with perfect play, white moving first,",
        "under the course's rules (a pawn steps straight forward onto an empty square or",
        "diagonally forward only to capture) and the standard rules (diagonally forward",
        "also onto an empty square). Under both, a pawn on the far row wins and a side to",
        "move without a legal move draws. Rebuilt by `scripts/solved-table.py`, one board",
        "after the other on this project's 2-core machine (both cores per solve), each with",
        f"a budget of {least_budget(done):g} s per solver ({', '.join(args.solvers)}), more where",
        "a row's command or note says so; a board is",
        "not tried when a board no larger in either dimension was left unsolved.",
        "",
        f"{solved_count(done)} of {len(done)} boards solved.",
        "",
        "| board | variant | value | nodes | time | solver | command |",
        "|---|---|---|---|---|---|---|",
    ]
    # Every variant with a record, not only those this run tries (--variants).
    recorded = {v for (_, v) in done}
    for variant in [v for v in ("course", "standard") if v in recorded or v in args.variants]:
        for w, h in all_sizes():
            size = f"{w}x{h}"
            r = done.get((size, variant))
            board = f"{w}×{h}"
            if r is None:
                lines.append(f"| {board} | {variant} | not yet tried | | | | |")
                continue
            if r["value"] is None:
                why = reason(r, done)
                lines.append(f"| {board} | {variant} | {why} | | | | |")
            else:
                note = f" ({r['note']})" if r.get("note") else ""
                lines.append(
                    f"| {board} | {variant} | {r['value']} | {r['nodes']:,} | "
                    f"{r['seconds']:.2f} s | {r['solver']} | `{r['command']}`{note} |"
                )
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, default=600.0, help="seconds per solver and board")
    parser.add_argument("--binary", default="target/release/ggp-player")
    parser.add_argument("--results", default="docs/results/solved.jsonl")
    parser.add_argument("--out", default="docs/solved.md")
    parser.add_argument("--variants", default="course,standard")
    parser.add_argument("--sizes", help="only these boards (e.g. 5x5,6x5)")
    parser.add_argument("--hash-mb", type=int, default=1024)
    parser.add_argument("--solvers", default="alphabeta", help="tried in this order")
    args = parser.parse_args()
    args.variants = args.variants.split(",")
    args.solvers = args.solvers.split(",")
    args.binary = os.path.abspath(args.binary)
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"{args.binary}: not an executable (cargo build --release?)")
    only = set(args.sizes.split(",")) if args.sizes else None
    os.makedirs(os.path.dirname(args.results) or ".", exist_ok=True)
    done = load(args.results)
    for variant in args.variants:
        for w, h in all_sizes():
            size = f"{w}x{h}"
            if (only and size not in only) or settled(done.get((size, variant)), args.budget):
                continue
            print(f"{size} {variant}", flush=True)
            smaller = dominated((w, h), variant, done, args.budget)
            if smaller:
                row = {"value": None, "not_tried_for": smaller}
            else:
                row = next(
                    (r for r in (solve(args, size, variant, s) for s in args.solvers) if r),
                    {"value": None},
                )
            row.update(size=size, variant=variant, budget=args.budget)
            done[(size, variant)] = row
            with open(args.results, "a") as f:
                f.write(json.dumps(row) + "\n")
            write_table(args, done)
    write_table(args, done)
    print(f"{solved_count(done)} of {len(done)} boards solved; table: {args.out}")


def reason(r, done):
    """Why an unsolved row has no value, in words: a board skipped names the smaller
    board left unsolved at the same budget, and says so if a longer run solved it since."""
    smaller = r.get("not_tried_for")
    if smaller is None and r.get("why", "").startswith("not tried: "):
        smaller = r["why"].split()[2]  # records written as "not tried: WxH is unsolved"
    if smaller is not None:
        why = f"not tried: {smaller} unsolved within {r['budget']:g} s"
        since = done.get((smaller, r["variant"]))
        if since is not None and since["value"] is not None:
            why += f" (solved since, in {since['seconds']:,.0f} s: this board is worth a longer run)"
        return why
    return r.get("why", f"unsolved within {r['budget']:g} s")


def least_budget(done):
    return min((r["budget"] for r in done.values()), default=0)


def solved_count(done):
    return sum(1 for r in done.values() if r["value"] is not None)


if __name__ == "__main__":
    main()
