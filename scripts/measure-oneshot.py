#!/usr/bin/env python3
"""Times a course program that answers one request per process (loa6, ataxx) the way
its course's framework does: from the process's start, to its answer line, and to its
exit. Prints the distribution of both over N runs, optionally beside busy loops that keep
every core loaded. The request is the start position's unless --request names a file.

    scripts/measure-oneshot.py loa6 --runs 150
    scripts/measure-oneshot.py ataxx --runs 150 --busy 2
    scripts/measure-oneshot.py loa6 --runs 40 --against old/loa6
    scripts/measure-oneshot.py ataxx --runs 5 --request docs/examples/ataxx-middle.txt

With --against, runs alternate between the program and another build of it, and each
side's figures come with its CPU time, page faults and peak memory per run.
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


def run_once(binary, request):
    """One request: seconds to the answer line and to the exit, CPU seconds (user and
    system, and system alone), minor page faults and peak resident MB."""
    started = time.perf_counter()
    p = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    p.stdin.write(request)
    p.stdin.flush()
    line = p.stdout.readline()
    replied = time.perf_counter() - started
    _, status, usage = os.wait4(p.pid, 0)
    exited = time.perf_counter() - started
    p.returncode = os.waitstatus_to_exitcode(status)
    p.stdin.close()
    p.stdout.close()
    if not line.strip() or p.returncode != 0:
        sys.exit(f"{binary}: no answer (exit status {p.returncode})")
    return (replied, exited, usage.ru_utime + usage.ru_stime, usage.ru_stime,
            usage.ru_minflt, usage.ru_maxrss / 1024)


def report(name, runs, limit):
    replies, exits, cpus, systems, faults, peaks = zip(*runs)
    gaps = [e - r for r, e in zip(replies, exits)]
    print(f"  {name}")
    print(f"    answer: {quantiles(replies)}")
    print(f"    exit:   {quantiles(exits)}")
    print(f"    exit - answer: {quantiles(gaps)}")
    print(f"    exits at or over the course's {limit:g} s: {sum(e >= limit for e in exits)}")
    print(f"    CPU (user + system): {quantiles(cpus)}; system median "
          f"{statistics.median(systems) * 1000:.1f} ms")
    print(f"    minor page faults median {statistics.median(faults):.0f}; "
          f"peak resident median {statistics.median(peaks):.1f} MB")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("program", choices=sorted(REQUESTS))
    parser.add_argument("--runs", type=int, default=150)
    parser.add_argument("--busy", type=int, default=0,
                        help="busy loops to run meanwhile (one per core loads every core)")
    parser.add_argument("--binary", help="the program (default target/release/PROGRAM)")
    parser.add_argument("--against", metavar="BINARY",
                        help="another build of the program, run alternately with it")
    parser.add_argument("--request", metavar="FILE",
                        help="the request to send (default: the start position's)")
    args = parser.parse_args()
    request = REQUESTS[args.program]
    if args.request:
        with open(args.request) as f:
            request = f.read()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    binary = args.binary or os.path.join(root, "target", "release", args.program)
    if not os.access(binary, os.X_OK):
        sys.exit(f"{binary} is not there: run cargo build --release first")
    binaries = [binary]
    if args.against:
        if not os.access(args.against, os.X_OK):
            sys.exit(f"{args.against} is not there")
        binaries.append(args.against)
    hogs = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.busy)]
    for h in hogs:
        h.start()
    runs = {b: [] for b in binaries}
    limit = LIMITS[args.program]
    load_before = os.getloadavg()[0]
    try:
        for i in range(args.runs):
            # Alternate which build goes first, so that neither always follows the other.
            order = binaries if i % 2 == 0 else binaries[::-1]
            for b in order:
                runs[b].append(run_once(b, request))
            print(f"\r{i + 1}/{args.runs}", end="", file=sys.stderr, flush=True)
    finally:
        for h in hogs:
            h.terminate()
    print(file=sys.stderr)
    print(f"{args.program}, {args.runs} runs, {args.busy} busy loops, "
          f"load average {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")
    for b in binaries:
        report(b, runs[b], limit)


if __name__ == "__main__":
    main()
