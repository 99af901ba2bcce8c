#!/usr/bin/env python3
"""A Halma GAME that never ends: the built program is asked for White's play in the same
start position again and again, in one directory (its playdata.txt grows as in a real
game), on a CPU budget for the whole game, charged as the master charges it (the
children's CPU time, start-up included). Prints the time left after 150, 250 and 500
plays (300, 500 and 1,000 plies)."""
import resource, subprocess, sys
if len(sys.argv) != 3:
    sys.exit("usage: scripts/halma-long-game.py PROGRAM CPU-SECONDS")
prog, budget = sys.argv[1], float(sys.argv[2])
rows = ["BBBBB...........", "BBBBB...........", "BBBB............", "BBB.............",
        "BB..............", "................", "................", "................",
        "................", "................", "................", "..............WW",
        ".............WWW", "............WWWW", "...........WWWWW", "...........WWWWW"]
left, longest = budget, 0.0
for play in range(1, 501):
    with open("input.txt", "w") as f:
        f.write("GAME\nWHITE\n%.3f\n%s\n" % (max(left, 0.0), "\n".join(rows)))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([prog], stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    longest = max(longest, used)
    left -= used
    if play in (150, 250, 500):
        print(f"after {play} plays ({2 * play} plies): {left:.3f} s left of {budget:g} s; longest play {longest:.3f} s", flush=True)
    if left <= 0:
        print(f"out of time at play {play}")
        break
