#!/usr/bin/env bash
# Remakes the `tuned` evaluation's weights (src/games/breakthrough/weights.rs) from games:
#
#   1. `improved` plays itself at fixed depths on eleven board sizes (selfplay --record);
#   2. `tune` fits the weights to those games and writes weights.rs; rebuild;
#   3. `tuned` (with the round-1 weights) plays itself on the same sizes;
#   4. `tune` fits the final weights to the games of both rounds and writes weights.rs.
#
# Each round of games takes about 4 minutes on 2 cores. The games are deterministic (fixed seeds
# and depths, one search thread per game): the same code plays the same games. A change
# to the search changes some games and so the weights a little.
#
#   scripts/tune.sh              # data in target/tune/
#   DATA=/tmp/tune scripts/tune.sh
set -euo pipefail
cd "$(dirname "$0")/.."

data=${DATA:-target/tune}
bin=target/release/ggp-player
weights=src/games/breakthrough/weights.rs
mkdir -p "$data"
rm -f "$data/r1.txt" "$data/r2.txt"

# size, depth, openings, random opening plies, seed
games=(
    "8x8 6 2000 6 11" "6x6 7 1500 4 12" "7x7 6 1500 5 13" "10x10 5 600 8 14"
    "6x8 6 800 5 15" "8x6 6 800 5 16" "9x9 5 600 6 17" "5x7 7 600 4 18"
    "7x5 7 600 4 19" "5x5 8 400 3 20" "4x6 8 300 3 21"
)

play_round() { # eval, output file, seed offset
    for g in "${games[@]}"; do
        read -r size depth openings plies seed <<<"$g"
        "$bin" selfplay "$1" "$1" --size "$size" --depth "$depth" --openings "$openings" \
            --opening-plies "$plies" --seed $((seed + $3)) --record "$2"
    done
}

cargo build --release
play_round improved "$data/r1.txt" 0
(cd "$data" && "$OLDPWD/$bin" tune r1.txt --out "$OLDPWD/$weights")
cargo build --release
play_round tuned "$data/r2.txt" 100
(cd "$data" && "$OLDPWD/$bin" tune r1.txt r2.txt --out "$OLDPWD/$weights")
cargo build --release
echo "weights written to $weights; compare: $bin selfplay tuned improved --depth 5"
