#!/usr/bin/env python3
"""The table of solved Breakthrough boards: docs/solved.md, rebuilt from solve runs.

Every board from 2x4 to 10x10 under both rule variants gets one row: its value for
white, the nodes and time, the solver and the command, or "unsolved within the budget".
Boards go smallest first; each is tried with the alpha-beta solver and, if that does not
settle it within the budget, with df-pn on every core. A board is not tried when a
board no larger in either dimension was left unsolved (larger boards are harder), and
its row says so.

Every result is appended to a JSON-lines file as soon as it is known, so a stopped run
picks up where it was (--results; delete a line to try that board again, e.g. with a
larger --budget).

    scripts/solved-table.py [--budget 600] [--binary target/release/ggp-player]
        [--results docs/results/solved.jsonl] [--out docs/solved.md]
        [--variants course,standard] [--sizes 2x4,3x5,...] [--hash-mb 1024]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

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


def dominated(size, variant, done):
    """A board no larger in either dimension that was left unsolved, if any."""
    w, h = size
    for (s, v), r in done.items():
        sw, sh = map(int, s.split("x"))
        if v == variant and r["value"] is None and sw <= w and sh <= h and (sw, sh) != (w, h):
            return s
    return None


def write_table(args, done):
    lines = [
        "# Solved Breakthrough boards",
        "",
        "The value of each board's start position with perfect play, white moving first,",
        "under the course's rules (diagonal steps only capture; a side to move without a",
        "legal move draws) and the standard rules (any forward step may capture; the side",
        "without a move loses). Rebuilt by `scripts/solved-table.py`, one board after the",
        f"other on this project's 2-core machine, each with a budget of {args.budget:g} s per",
        "solver: the alpha-beta solver first, df-pn on both cores if that did not settle it.",
        "",
        "| board | variant | value | nodes | time | solver | command |",
        "|---|---|---|---|---|---|---|",
    ]
    for variant in args.variants:
        for w, h in all_sizes():
            size = f"{w}x{h}"
            r = done.get((size, variant))
            board = f"{w}×{h}"
            if r is None:
                continue
            if r["value"] is None:
                why = r.get("why", "unsolved within the budget")
                lines.append(f"| {board} | {variant} | {why} | | | | |")
            else:
                lines.append(
                    f"| {board} | {variant} | {r['value']} | {r['nodes']:,} | "
                    f"{r['seconds']:.2f} s | {r['solver']} | `{r['command']}` |"
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
    args = parser.parse_args()
    args.variants = args.variants.split(",")
    args.binary = os.path.abspath(args.binary)
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"{args.binary}: not an executable (cargo build --release?)")
    only = set(args.sizes.split(",")) if args.sizes else None
    os.makedirs(os.path.dirname(args.results) or ".", exist_ok=True)
    done = load(args.results)
    for variant in args.variants:
        for w, h in all_sizes():
            size = f"{w}x{h}"
            if (only and size not in only) or (size, variant) in done:
                continue
            print(f"{size} {variant}", flush=True)
            smaller = dominated((w, h), variant, done)
            if smaller:
                row = {"value": None, "why": f"not tried: {smaller} is unsolved"}
            else:
                row = solve(args, size, variant, "alphabeta") or solve(
                    args, size, variant, "dfpn"
                ) or {"value": None}
            row.update(size=size, variant=variant, budget=args.budget)
            done[(size, variant)] = row
            with open(args.results, "a") as f:
                f.write(json.dumps(row) + "\n")
            write_table(args, done)
    write_table(args, done)
    solved = sum(1 for r in done.values() if r["value"] is not None)
    print(f"{solved} of {len(done)} boards solved; table: {args.out}")


if __name__ == "__main__":
    main()
