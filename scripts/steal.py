#!/usr/bin/env python3
"""Prints the moments a virtual machine's host took a processor away ("steal" time).

A reply that leaves a player late although its search stopped in time can be the
machine's doing: a host may pause a virtual processor for a whole scheduling slice.
This samples the kernel's per-processor counters in /proc/stat and prints a line for
every sample in which steal time grew, with the time of day (UTC) and the amount, so
that the pauses can be set beside a player's log.
"""

import argparse
import os
import sys
import time


def steal_ticks(cpu):
    """The processor's steal counter, in clock ticks (the eighth field of its line)."""
    name = f"cpu{cpu} "
    with open("/proc/stat") as stat:
        for line in stat:
            if line.startswith(name):
                return int(line.split()[8])
    sys.exit(f"steal.py: no processor {cpu} in /proc/stat")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu", type=int, default=0, help="the processor to watch (default 0)")
    parser.add_argument("--every-ms", type=float, default=20, help="sampling period (default 20)")
    parser.add_argument("--seconds", type=float, help="stop after this long (default: never)")
    args = parser.parse_args()
    tick_ms = 1000 / os.sysconf("SC_CLK_TCK")
    until = None if args.seconds is None else time.monotonic() + args.seconds
    before, total, pauses = steal_ticks(args.cpu), 0, 0
    try:
        while until is None or time.monotonic() < until:
            time.sleep(args.every_ms / 1000)
            now = steal_ticks(args.cpu)
            if now > before:
                ms = (now - before) * tick_ms
                total, pauses = total + ms, pauses + 1
                stamp = time.strftime("%H:%M:%S", time.gmtime())
                print(f"{stamp}.{int(time.time() % 1 * 1000):03d} steal {ms:.0f} ms", flush=True)
            before = now
    except KeyboardInterrupt:
        pass
    print(f"cpu{args.cpu}: {pauses} samples with steal, {total:.0f} ms in all", flush=True)


if __name__ == "__main__":
    main()
