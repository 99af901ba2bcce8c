#!/usr/bin/env python3
"""The final piece counts of the Ataxx games in tournament results files.

    scripts/ataxx-margins.py RESULTS.jsonl [PLAYER]

Replays each game's moves (`fx:fy:tx:ty:`, or `pass`) from the start and prints, for
PLAYER (by default the first player named in the first record) as Black and as White:
games, wins/draws/losses, faults by kind and side, and the margin in pieces (PLAYER's
less the opponent's at the end) as a list and a median. A game that ended on a fault
counts as its result says, but its margin is left out (the board was not finished).
"""

import json
import statistics
import sys

N = 7


def final_counts(moves):
    """Black's and White's pieces after `moves` from the course's start."""
    board = {(0, 0): 1, (N - 1, N - 1): 1, (N - 1, 0): 2, (0, N - 1): 2}
    side = 1
    for m in moves:
        if m != "pass":
            fx, fy, tx, ty = (int(v) for v in m.strip(":").split(":"))
            if board.get((fx, fy)) != side or (tx, ty) in board:
                raise ValueError(f"move {m} is not legal for side {side}")
            if max(abs(tx - fx), abs(ty - fy)) > 1:
                del board[(fx, fy)]
            board[(tx, ty)] = side
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    sq = (tx + dx, ty + dy)
                    if board.get(sq) == 3 - side:
                        board[sq] = side
        side = 3 - side
    values = list(board.values())
    return values.count(1), values.count(2)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    records = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    if not records:
        sys.exit("no records")
    player = sys.argv[2] if len(sys.argv) == 3 else records[0]["players"]["black"]
    for seat, other in (("black", "white"), ("white", "black")):
        games = [r for r in records if r["players"][seat] == player]
        wins = draws = losses = 0
        margins, faults = [], {}
        for r in games:
            goals = dict(zip(r["roles"], r["goals"]))
            wins += goals[seat] == 100
            draws += goals[seat] == 50
            losses += goals[seat] == 0
            for f in r["faults"]:
                who = player if f["role"] == seat else r["players"][other]
                key = f"{who} {f['kind']}"
                faults[key] = faults.get(key, 0) + 1
            if not r["faults"]:
                black, white = final_counts(r["moves"])
                margins.append(black - white if seat == "black" else white - black)
        median = statistics.median(margins) if margins else "-"
        print(
            f"{player} as {seat}: {len(games)} games, +{wins} ={draws} -{losses}; "
            f"faults {faults or 'none'}; margins {sorted(margins)}; median {median}"
        )


if __name__ == "__main__":
    main()
