#!/usr/bin/env python3
"""Abandoned matches: a controller that starts matches and then goes away.

Starts `ggp-player serve` (the binary given, release build by default), sends N matches of
8x8 Breakthrough a START and one PLAY (our move: a searched reply), then nothing, and
samples the player's resident memory (VmRSS, and the peak VmHWM) every second. Loopback
only. Prints one line per sample and a summary; exits 1 if the player stopped answering.

    scripts/abandoned-matches.py [--binary target/release/ggp-player] [--matches 40]
        [--start-clock 5] [--play-clock 2] [--watch 40] [-- extra serve arguments]
"""

import argparse
import os
import socket
import subprocess
import sys
import time

RULES_CMD = ["gdl", "print", "8x8"]


def exchange(port, body, timeout=30.0):
    """One GGP message over raw HTTP/1.0; the reply body, read until EOF."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        data = body.encode()
        s.sendall(
            b"POST / HTTP/1.0\r\nContent-Type: text/acl\r\nContent-Length: %d\r\n\r\n"
            % len(data)
            + data
        )
        chunks = []
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    reply = b"".join(chunks).decode(errors="replace")
    return reply.split("\r\n\r\n", 1)[-1].strip()


def memory_kib(pid):
    """(VmRSS, VmHWM) of `pid` in KiB."""
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0])
    return fields.get("VmRSS", 0), fields.get("VmHWM", 0)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default="target/release/ggp-player")
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--start-clock", type=int, default=5)
    parser.add_argument("--play-clock", type=int, default=2)
    parser.add_argument("--watch", type=int, default=40, help="seconds sampled after the last match")
    parser.add_argument("serve_args", nargs="*", help="extra arguments to serve")
    args = parser.parse_args()

    rules = subprocess.run(
        [args.binary, *RULES_CMD], check=True, capture_output=True, text=True
    ).stdout
    rules = " ".join(line.split(";")[0] for line in rules.splitlines())
    port = free_port()
    log = open(os.devnull, "w")
    player = subprocess.Popen(
        [args.binary, "serve", "--port", str(port), *args.serve_args],
        stdout=log,
        stderr=log,
    )
    try:
        for _ in range(100):
            try:
                exchange(port, "(INFO)", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        replies = {}
        began = time.monotonic()
        for i in range(args.matches):
            start = exchange(
                port,
                f"(START abandoned.{i} white ({rules}) {args.start_clock} {args.play_clock})",
            )
            play = exchange(port, f"(PLAY abandoned.{i} NIL)")
            start = "ready" if start == "ready" else "refused" if "in progress" in start else start
            play = "move" if play.startswith("(move ") else "unknown match" if "unknown match" in play else play
            replies[(start, play)] = replies.get((start, play), 0) + 1
            rss, hwm = memory_kib(player.pid)
            print(f"match {i}: rss {rss / 1024:.0f} MiB, peak {hwm / 1024:.0f} MiB", flush=True)
        print(f"replies (START, PLAY): {replies}")
        print(f"{args.matches} matches started in {time.monotonic() - began:.1f} s; watching")
        for t in range(args.watch):
            time.sleep(1)
            rss, hwm = memory_kib(player.pid)
            print(f"+{t + 1} s: rss {rss / 1024:.0f} MiB, peak {hwm / 1024:.0f} MiB", flush=True)
        info = exchange(port, "(INFO)", timeout=5)
        rss, hwm = memory_kib(player.pid)
        print(f"end: rss {rss / 1024:.0f} MiB, peak {hwm / 1024:.0f} MiB, INFO -> {info}")
        return 0 if "available" in info else 1
    finally:
        player.terminate()
        player.wait(timeout=30)
        log.close()


if __name__ == "__main__":
    sys.exit(main())
