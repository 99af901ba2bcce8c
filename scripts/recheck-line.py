#!/usr/bin/env python3
"""A second route for a solved board: its value re-checked along its line by the other solver.

Solves the board with one solver (alpha-beta by default), takes the line it prints (each
side keeping the value), and solves the positions some plies into that line with the
other solver, each from scratch. Each must have the value the first solve implies for the
side to move there. Deep positions are far cheaper than the start, so this reaches boards
that only one solver settles within the time at hand; it checks the line, not the whole
proof.

Appends one JSON line per position checked to --results as soon as it is known, and
exits with 1 when a value disagrees, 2 when a solve did not finish or the line is
shorter than a ply asked for.

    scripts/recheck-line.py 6x5 --variant standard --plies 6,8,10,12,14
        [--solver alphabeta] [--time 600] [--hash-mb 1024]
        [--line "(move 1 2 1 3) ..." --value "win for black"]
        [--binary target/release/ggp-player] [--results docs/results/rechecks.jsonl]
"""

import argparse
import json
import os
import re
import subprocess
import sys

from solve_output import MOVE, line_of

RESULT = re.compile(
    r"^\d+x\d+(?: after .*)?: (win|draw|loss) for (white|black) \((\d+) nodes in ([\d.]+) s\)",
    re.M,
)
OTHER = {"alphabeta": "dfpn", "dfpn": "alphabeta"}


def winner(outcome, side):
    """The result in words for either side: "win for white", "win for black" or "draw"."""
    if outcome == "draw":
        return "draw"
    other = "black" if side == "white" else "white"
    return f"win for {side if outcome == 'win' else other}"


def solve(args, solver, moves):
    command = ["ggp-player", "solve", args.board, "--variant", args.variant,
               "--solver", solver, "--time", str(args.time), "--hash-mb", str(args.hash_mb)]
    for m in moves:
        command += ["--after", m]
    run = subprocess.run([args.binary] + command[1:], capture_output=True, text=True,
                         timeout=args.time * 2 + 120)
    found = RESULT.search(run.stdout)
    if run.returncode != 0 or not found:
        reason = (run.stderr.strip().splitlines() or ["no output"])[-1]
        return None, reason, command
    return {
        "value": winner(found.group(1), found.group(2)),
        "nodes": int(found.group(3)),
        "seconds": float(found.group(4)),
        "line": line_of(run.stdout),
    }, None, command


def shell(command):
    return " ".join(f'"{w}"' if " " in w else w for w in command)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("board", help="e.g. 6x5")
    parser.add_argument("--variant", default="course")
    parser.add_argument("--plies", required=True, help="plies into the line, e.g. 6,8,10")
    parser.add_argument("--solver", default="alphabeta", choices=sorted(OTHER),
                        help="the solver of the whole board; the other re-checks")
    parser.add_argument("--time", type=float, default=600.0, help="seconds per solve")
    parser.add_argument("--hash-mb", type=int, default=1024)
    parser.add_argument("--line", help="the line, instead of solving the board first")
    parser.add_argument("--value", choices=["win for white", "win for black", "draw"],
                        help="the board's value, with --line")
    parser.add_argument("--binary", default="target/release/ggp-player")
    parser.add_argument("--results", default="docs/results/rechecks.jsonl")
    args = parser.parse_args()
    if (args.line is None) != (args.value is None):
        sys.exit("--line and --value go together")
    plies = sorted({int(p) for p in args.plies.split(",")})
    args.binary = os.path.abspath(args.binary)
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"{args.binary}: not an executable (cargo build --release?)")

    if args.line is not None:
        line, value, source = MOVE.findall(args.line), args.value, "given"
    else:
        root, why, command = solve(args, args.solver, [])
        if root is None:
            print(f"{args.board} {args.variant}: {why}", file=sys.stderr)
            return 2
        line, value, source = root["line"], root["value"], shell(command)
        print(f"{args.board} {args.variant}: {value} by {args.solver} "
              f"({root['nodes']:,} nodes in {root['seconds']:.2f} s), "
              f"line of {len(line)} plies", flush=True)

    status = 0
    checker = OTHER[args.solver]
    os.makedirs(os.path.dirname(args.results) or ".", exist_ok=True)
    for ply in plies:
        if ply > len(line):
            print(f"ply {ply}: the line has only {len(line)} plies", file=sys.stderr)
            status = max(status, 2)
            continue
        moves = line[:ply]
        found, why, command = solve(args, checker, moves)
        record = {"board": args.board, "variant": args.variant, "ply": ply,
                  "expected": value, "solver": checker, "line_from": source,
                  "command": shell(command)}
        if found is None:
            record.update(value=None, why=why)
            print(f"ply {ply}: {why}", flush=True)
            status = max(status, 2)
        else:
            agrees = found["value"] == value
            record.update(value=found["value"], nodes=found["nodes"],
                          seconds=found["seconds"], agrees=agrees)
            print(f"ply {ply}: {found['value']} by {checker} ({found['nodes']:,} nodes in "
                  f"{found['seconds']:.2f} s): {'agrees' if agrees else 'DISAGREES'}",
                  flush=True)
            if not agrees:
                status = 1
        with open(args.results, "a") as f:
            f.write(json.dumps(record) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
