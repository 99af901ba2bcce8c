#!/usr/bin/env python3
"""Times a course program that answers one request per process (loa6, ataxx) the way
its course's framework does: from the process's start, to its answer line, and to its
exit. Prints the distribution of both over N runs, optionally beside busy loops that keep
every core loaded.

    scripts/measure-oneshot.py loa6 --runs 150
    scripts/measure-oneshot.py ataxx --runs 150 --busy 2
"""

import argparse
import multiprocessing
import os
import statistics
import subprocess
import sys
import time

REQUESTS = {
    "loa6": "move\n1\n6\n.XXXX.\nO....O\nO....O\nO....O\nO....O\n.XXXX.\n",
    "ataxx": "move\n1\n7\n" + "\n".join(
        ["1:0:0:0:0:0:2:"] + ["0:0:0:0:0:0:0:"] * 5 + ["2:0:0:0:0:0:1:"]) + "\n",
}
LIMITS = {"loa6": 3.0, "ataxx": 5.0}


def spin():
    while True:
        pass


def quantiles(values):
    values = sorted(values)
    pick = lambda q: values[min(len(values) - 1, int(q * len(values)))]
    return (f"median {statistics.median(values):.3f} s, p90 {pick(0.9):.3f} s, "
            f"p99 {pick(0.99):.3f} s, max {values[-1]:.3f} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("program", choices=sorted(REQUESTS))
    parser.add_argument("--runs", type=int, default=150)
    parser.add_argument("--busy", type=int, default=0,
                        help="busy loops to run meanwhile (one per core loads every core)")
    parser.add_argument("--binary", help="the program (default target/release/PROGRAM)")
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    binary = args.binary or os.path.join(root, "target", "release", args.program)
    if not os.access(binary, os.X_OK):
        sys.exit(f"{binary} is not there: run cargo build --release first")
    hogs = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.busy)]
    for h in hogs:
        h.start()
    replies, exits, over = [], [], 0
    limit = LIMITS[args.program]
    try:
        for i in range(args.runs):
            started = time.perf_counter()
            p = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, text=True)
            p.stdin.write(REQUESTS[args.program])
            p.stdin.flush()
            line = p.stdout.readline()
            replied = time.perf_counter() - started
            p.wait()
            exited = time.perf_counter() - started
            p.stdin.close()
            p.stdout.close()
            if not line.strip() or p.returncode != 0:
                sys.exit(f"run {i}: no answer (exit status {p.returncode})")
            replies.append(replied)
            exits.append(exited)
            over += exited >= limit
            print(f"\r{i + 1}/{args.runs}", end="", file=sys.stderr, flush=True)
    finally:
        for h in hogs:
            h.terminate()
    print(file=sys.stderr)
    gaps = [e - r for r, e in zip(replies, exits)]
    print(f"{args.program}, {args.runs} runs, {args.busy} busy loops, "
          f"load average before the end {os.getloadavg()[0]:.1f}")
    print(f"  answer: {quantiles(replies)}")
    print(f"  exit:   {quantiles(exits)}")
    print(f"  exit - answer: {quantiles(gaps)}")
    print(f"  exits at or over the course's {limit:g} s: {over}")


if __name__ == "__main__":
    main()
