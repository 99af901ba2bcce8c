#!/usr/bin/env python3
"""The player's table of solved openings: src/games/breakthrough/solved.jsonl.

For every board docs/results/solved.jsonl records as solved (by scripts/solved-table.py)
in at most --max-seconds, runs `ggp-player solve WxH --variant V --openings 1`: the
start position's value and the first moves that keep it, and the same for every
position after white's first move. The player restricts its choice to those moves.

A board solved only in more than --max-seconds is tabled from the line its record keeps
(`line`, or `line_start` where only the line's first plies were kept), without solving:
the one position of the first two plies where the line's move is proven to keep the
value (the start, when white wins or draws; after the line's first move, when black
wins), with that move alone and `"line_only": true`.

Boards go smallest first; each board's lines are written to the table as soon as the
board is done, so a stopped run picks up where it was. A board already in the table is
skipped (delete its lines to redo it); a board not done within --budget seconds is
reported and left out.

    scripts/solved-openings.py [--budget 1800] [--max-seconds 20]
        [--binary target/release/ggp-player] [--hash-mb 2048]
        [--results docs/results/solved.jsonl]
        [--table src/games/breakthrough/solved.jsonl]
"""

import argparse
import json
import os
import subprocess
import sys
import time


def squares(size):
    w, h = (int(n) for n in size.split("x"))
    return (w * h, h, w)


def read_lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def write_table(path, lines):
    lines = sorted(
        lines, key=lambda p: (p["variant"], squares(p["board"]), len(p["after"]))
    )
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        for p in lines:
            f.write(json.dumps(p, separators=(",", ":")) + "\n")
    os.replace(tmp, path)


def openings(args, size, variant):
    command = [
        args.binary, "solve", size, "--variant", variant, "--openings", "1",
        "--time", str(args.budget), "--hash-mb", str(args.hash_mb),
    ]
    began = time.monotonic()
    run = subprocess.run(
        command, capture_output=True, text=True, timeout=args.budget * 2 + 120
    )
    wall = time.monotonic() - began
    if run.returncode != 0:
        reason = (run.stderr.strip().splitlines() or ["no output"])[-1]
        print(f"  not done: {reason} ({wall:.0f} s)", flush=True)
        return None
    found = [json.loads(l) for l in run.stdout.splitlines() if l.startswith("{")]
    print(f"  {len(found)} positions in {wall:.0f} s", flush=True)
    return found


def from_line(r):
    """The line-only table entry of a solved record, or None without a line."""
    line = r.get("line") or r.get("line_start") or []
    if r["value"] == "win for black" and len(line) >= 2:
        after, value, keeping = line[:1], "win", line[1:2]
    elif r["value"] in ("win for white", "draw") and line:
        after, value, keeping = [], r["value"].split()[0], line[:1]
    else:
        return None
    return {
        "board": r["size"], "variant": r["variant"], "after": after, "value": value,
        "keeping": keeping, "line_only": True,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=1800.0)
    parser.add_argument("--max-seconds", type=float, default=20.0)
    parser.add_argument("--binary", default="target/release/ggp-player")
    parser.add_argument("--hash-mb", type=int, default=2048)
    parser.add_argument("--results", default="docs/results/solved.jsonl")
    parser.add_argument("--table", default="src/games/breakthrough/solved.jsonl")
    args = parser.parse_args()
    if not os.path.exists(args.binary):
        sys.exit(f"{args.binary} not found: run `cargo build --release` first")

    records = [r for r in read_lines(args.results) if r.get("solver")]
    solved = [r for r in records if r["seconds"] <= args.max_seconds]
    solved.sort(key=lambda r: (squares(r["size"]), r["variant"]))
    table = read_lines(args.table)
    done = {(p["board"], p["variant"]) for p in table}
    quick = {(r["size"], r["variant"]) for r in solved}
    for r in records:
        key = (r["size"], r["variant"])
        if key in done or key in quick or not (entry := from_line(r)):
            continue
        print(f"{r['size']} {r['variant']}: from its line", flush=True)
        table.append(entry)
        done.add(key)
        write_table(args.table, table)
    for r in solved:
        key = (r["size"], r["variant"])
        if key in done:
            continue
        print(f"{r['size']} {r['variant']}:", flush=True)
        found = openings(args, *key)
        if found:
            table.extend(found)
            done.add(key)
            write_table(args.table, table)
    print(f"{len(done)} boards, {len(table)} positions in {args.table}")


if __name__ == "__main__":
    main()
