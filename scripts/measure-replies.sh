#!/usr/bin/env bash
# Reply times of the GGP player at a 1 s play clock: starts two `ggp-player serve`
# processes (release build) that play each other, two matches at once, refereed by the
# ignored test `measure_reply_times` in tests/server.rs, and prints how late each reply
# came against the search deadline (play clock - margin), plus noop/START/STOP latencies.
#
#   scripts/measure-replies.sh                 # the player's default margin, 400 moves
#   MARGIN_MS=200 MOVES=200 scripts/measure-replies.sh
#
# Environment: MOVES (searched moves to play, default 400), MARGIN_MS (default: the
# player's own default), LANES (matches at once, default 2), PORTS (default "4101 4102"),
# BIN (default target/release/ggp-player, built if missing).
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${BIN:-target/release/ggp-player}
moves=${MOVES:-400}
lanes=${LANES:-2}
read -r -a ports <<<"${PORTS:-4101 4102}"
[[ -x $bin ]] || cargo build --release

margin_args=()
if [[ -n ${MARGIN_MS:-} ]]; then
    margin_args=(--margin-ms "$MARGIN_MS")
fi
logs=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
for port in "${ports[@]}"; do
    RUST_LOG=${RUST_LOG:-info} "$bin" serve --port "$port" "${margin_args[@]}" \
        2>"$logs/player-$port.log" &
    pids+=($!)
done
# Wait for both to listen, and read the margin they use.
margin=""
for _ in $(seq 50); do
    margin=$(grep -ho 'margin_ms=[0-9]*' "$logs"/player-*.log 2>/dev/null | head -n1 | cut -d= -f2 || true)
    listening=$(grep -l 'listening' "$logs"/player-*.log 2>/dev/null | wc -l)
    [[ -n $margin && $listening -eq ${#ports[@]} ]] && break
    sleep 0.1
done
[[ -n $margin ]] || { echo "the players did not start; see $logs" >&2; exit 1; }

players=$(printf '127.0.0.1:%s,' "${ports[@]}")
GGP_PLAYERS=${players%,} GGP_MARGIN_MS=$margin GGP_MOVES=$moves GGP_LANES=$lanes \
    cargo test --test tests measure_reply_times -- --ignored --nocapture \
    >"$logs/driver.log" 2>&1 || status=$?
grep -E 'players|searched moves|reply time|latency ms|panicked|test result' "$logs/driver.log" || true
echo "logs (players, driver): $logs"
exit "${status:-0}"
