#!/usr/bin/env python3
"""Soak: many refereed games against one long-running player, its memory sampled.

Starts our player (`ggp-player serve`, release build by default, default settings) and a
random mover (`serve --agent random --no-ponder`) once, on loopback, and has the built-in
referee play them games in turn through every leg: both dialects, each over Breakthrough
3x5 to 10x10 with the project's rules, a scrambled copy of the rules (every symbol but the
keywords, numbers and variables renamed, as ggp-base scrambles) on 5x5 and 8x8, and the
course's own 10x10 rules when ../shared/reference/ has the kiosk's template. Each leg is
one `tournament` with its own results file (`--resume`: a stopped soak picks up where it
was). Our player's resident memory (VmRSS) is written to memory.csv every few seconds.
Prints the games, faults and memory at the end; exits 1 on a fault or a player that died.

    scripts/soak.py [--games 1000] [--binary target/release/ggp-player] [--out soak]
        [--playclock 1] [--concurrency 2] [--sample 5]
"""

import argparse
import csv
import json
import os
import random
import re
import socket
import subprocess
import sys
import threading
import time

SIZES = ["3x5", "4x5", "5x5", "5x6", "6x6", "7x7", "8x8", "9x9", "10x10"]
SCRAMBLED = ["5x5", "8x8"]
DIALECTS = ["ggp-base", "dresden"]
KEYWORDS = {
    "role", "init", "true", "next", "legal", "does", "goal", "terminal",
    "distinct", "not", "or", "<=", "base", "input",
}
TEMPLATE = "../shared/reference/gdl/kiosk_breakthrough_rules_template.kif"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def scramble(text, seed):
    """The rules with every symbol but keywords, numbers and variables renamed."""
    rng = random.Random(seed)
    names = {}

    def rename(match):
        word = match.group(0)
        key = word.lower()
        if key in KEYWORDS or word.startswith("?") or word.isdigit():
            return word
        if key not in names:
            while True:
                new = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(8))
                if new not in KEYWORDS and new not in names.values():
                    names[key] = new
                    break
        return names[key]

    text = re.sub(r";[^\n]*", "", text)
    return re.sub(r"[^\s()]+", rename, text)


def wait_listening(port, proc, seconds=30):
    end = time.time() + seconds
    while time.time() < end:
        if proc.poll() is not None:
            sys.exit(f"a player exited at start (status {proc.returncode})")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    sys.exit(f"no player listening on port {port}")


def legs(args, rules_dir):
    """(name, extra tournament arguments) of every leg."""
    out = []
    for dialect in DIALECTS:
        out.append((f"{dialect}-ours", ["--dialect", dialect, "--sizes", ",".join(SIZES)]))
        for size in SCRAMBLED:
            path = os.path.join(rules_dir, f"scrambled_{size}.kif")
            if not os.path.exists(path):
                ours = subprocess.run(
                    [args.binary, "gdl", "print", size],
                    check=True, capture_output=True, text=True,
                ).stdout
                with open(path, "w") as f:
                    f.write(scramble(ours, seed=size))
            out.append((f"{dialect}-scrambled-{size}", ["--dialect", dialect, "--rules", path]))
        if os.path.exists(TEMPLATE):
            path = os.path.join(rules_dir, "course_10x10.kif")
            with open(TEMPLATE) as t, open(path, "w") as f:
                f.write("(width 10) (height 10)\n" + t.read())
            out.append((f"{dialect}-course-10x10", ["--dialect", dialect, "--rules", path]))
        else:
            print(f"course 10x10 skipped: {TEMPLATE} is not here", flush=True)
    return out


def records(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games in all (about)")
    parser.add_argument("--binary", default="target/release/ggp-player")
    parser.add_argument("--out", default="soak", help="folder for results and memory.csv")
    parser.add_argument("--playclock", type=int, default=1)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--sample", type=float, default=5.0, help="seconds between samples")
    args = parser.parse_args()
    args.binary = os.path.abspath(args.binary)
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"{args.binary}: not an executable (cargo build --release?)")
    os.makedirs(args.out, exist_ok=True)

    ports = free_port(), free_port()
    logs = [open(os.path.join(args.out, f"{n}.log"), "a") for n in ("ours", "random")]
    ours = subprocess.Popen(
        [args.binary, "serve", "--port", str(ports[0])], stderr=logs[0], stdout=logs[0]
    )
    rand = subprocess.Popen(
        [args.binary, "serve", "--port", str(ports[1]), "--agent", "random", "--no-ponder"],
        stderr=logs[1], stdout=logs[1],
    )
    status = 0
    try:
        wait_listening(ports[0], ours)
        wait_listening(ports[1], rand)
        plan = legs(args, args.out)
        # Games per pairing, size and clock: each leg's tournament plays this many both
        # ways (colours alternate) for each of its sizes.
        boards = sum(len(SIZES) if "--sizes" in extra else 1 for _, extra in plan)
        per_board = max(2, round(args.games / boards / 2) * 2)
        print(f"{len(plan)} legs, {boards} boards, {per_board} games a board", flush=True)

        started = time.time()
        done = threading.Event()
        memory_csv = open(os.path.join(args.out, "memory.csv"), "a", newline="")
        writer = csv.writer(memory_csv)
        samples = []

        def finished_games():
            return sum(len(records(os.path.join(args.out, f"{n}.jsonl"))) for n, _ in plan)

        def sample():
            while not done.is_set():
                if ours.poll() is None:
                    mib = rss_mib(ours.pid)
                    samples.append(mib)
                    writer.writerow([round(time.time() - started, 1), finished_games(), round(mib, 1)])
                    memory_csv.flush()
                done.wait(args.sample)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        for name, extra in plan:
            command = [
                args.binary, "tournament",
                "--player", f"ours=http://127.0.0.1:{ports[0]}",
                "--player", f"random=http://127.0.0.1:{ports[1]}",
                "--playclocks", str(args.playclock), "--startclock", "5",
                "--games", str(per_board), "--concurrency", str(args.concurrency),
                "--results", os.path.join(args.out, f"{name}.jsonl"), "--resume",
                *extra,
            ]
            print(f"== {name}", flush=True)
            result = subprocess.run(command, stdout=subprocess.PIPE, text=True)
            print("\n".join(result.stdout.splitlines()[-6:]), flush=True)
            if result.returncode != 0 or ours.poll() is not None or rand.poll() is not None:
                print(f"leg {name} failed (status {result.returncode})", flush=True)
                status = 1
                break
        done.set()
        sampler.join()

        games = faults = 0
        for name, _ in plan:
            for r in records(os.path.join(args.out, f"{name}.jsonl")):
                games += 1
                faults += len(r.get("faults", []))
        minutes = (time.time() - started) / 60
        print(f"games {games}, faults {faults}, {minutes:.1f} min", flush=True)
        if samples:
            tenth = max(1, len(samples) // 10)
            first, last = samples[:tenth], samples[-tenth:]
            print(
                f"our resident memory MiB: first tenth median {sorted(first)[len(first) // 2]:.1f}, "
                f"last tenth median {sorted(last)[len(last) // 2]:.1f}, peak {max(samples):.1f} "
                f"({len(samples)} samples in {args.out}/memory.csv)",
                flush=True,
            )
        if faults:
            status = 1
    finally:
        for p in (ours, rand):
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
    return status


if __name__ == "__main__":
    sys.exit(main())
