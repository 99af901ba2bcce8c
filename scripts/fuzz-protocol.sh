#!/usr/bin/env bash
# The protocol fuzzer's long run: the ignored test `fuzz_protocol` (tests/fuzz.rs) starts
# the release `ggp-player serve` on a free loopback port and sends it a seeded stream of
# valid matches (played to their end, every move checked legal and within the play clock)
# mixed with bad input, sampling the server's resident memory; it prints the messages by
# kind, the matches, the faults and the memory (start, peak, final), and fails on a fault.
#
#   scripts/fuzz-protocol.sh                       # 3000 messages, seed 1
#   MESSAGES=500 SEED=7 scripts/fuzz-protocol.sh
#   SERVE_ARGS="--margin-ms 300 --no-ponder" scripts/fuzz-protocol.sh
#
# Environment: MESSAGES (default 3000), SEED (1), SECONDS_LIMIT (900: nothing new is begun
# after it), LANES (valid matches at once, 2), SERVE_ARGS (more serve arguments),
# BIN (default target/release/ggp-player, built if missing).
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${BIN:-target/release/ggp-player}
[[ -x $bin ]] || cargo build --release

GGP_FUZZ_BINARY=$bin GGP_FUZZ_MESSAGES=${MESSAGES:-3000} GGP_FUZZ_SEED=${SEED:-1} \
    GGP_FUZZ_SECONDS=${SECONDS_LIMIT:-900} GGP_FUZZ_LANES=${LANES:-2} \
    GGP_FUZZ_SERVE_ARGS=${SERVE_ARGS:-} \
    cargo test --test tests fuzz_protocol -- --ignored --exact fuzz::fuzz_protocol --nocapture
