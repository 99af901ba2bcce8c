#!/usr/bin/env bash
# The course experiments: the random agent and alpha-beta with the baseline and the
# improved evaluation against each other, both colours, on 3x5, 5x5 and 8x8, at play
# clocks of 1 s and 10 s; and improved against random on 5x5 and 8x8 with enough games
# to bound its score. Results (JSON lines) go to docs/results/, tables to
# docs/experiments.md.
#
#   scripts/experiments.sh                    # the full run, 20 games per pairing, size and clock (many hours)
#   scripts/experiments.sh --quick            # 2 games per pairing and size at 1 s (a few minutes)
#   scripts/experiments.sh --clocks 1:20,10:2 # CLOCK:GAMES pairs: 20 games at 1 s, 2 at 10 s
#
# Options: --clocks CLOCK:GAMES,... (default 1:20,10:20), --sizes A,B (default
# 3x5,5x5,8x8), --quick. CONCURRENCY (default 2) sets the matches played at once.
# An interrupted run keeps every finished game: run the same command again and the
# tournaments resume where they stopped.
set -euo pipefail
cd "$(dirname "$0")/.."

clocks="1:20,10:20"
sizes="3x5,5x5,8x8"
concurrency=${CONCURRENCY:-2}
while [[ $# -gt 0 ]]; do
    case $1 in
        --quick) clocks="1:2"; shift ;;
        --clocks) clocks=$2; shift 2 ;;
        --sizes) sizes=$2; shift 2 ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done

cargo build --release --quiet
bin=target/release/ggp-player
mkdir -p docs/results
out=docs/experiments.md
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)

# tournament RESULTS-FILE ARGS...: runs (or resumes) a tournament, prints its table.
tournament() {
    local results=$1
    shift
    local resume=()
    [[ -s $results ]] && resume=(--resume)
    echo "== $results" >&2
    "$bin" tournament "$@" --startclock 5 --concurrency "$concurrency" --results "$results" "${resume[@]}"
}

section() {
    printf '\n## %s\n\n```\n%s\n```\n' "$1" "$2" >>"$out"
}

{
    echo "# Experiments"
    echo
    echo "Produced by \`scripts/experiments.sh --clocks $clocks --sizes $sizes\` on"
    echo "$(date -u +%Y-%m-%d), commit $commit, a machine with $(nproc) cores, $concurrency matches at once."
    echo
    echo "Players (each a \`ggp-player serve\` process started by the referee, default margin):"
    echo
    echo "- \`random\`: \`--agent random\`, a uniformly random legal move;"
    echo "- \`baseline\`: \`--agent alphabeta --eval baseline\`, the course's evaluation;"
    echo "- \`improved\`: \`--agent alphabeta --eval improved\`."
    echo
    echo "Rows: the first player's result against the second (\`+wins =draws -losses\`), its"
    echo "score, and the Elo difference with its 95% interval (the estimate is \`inf\` when one"
    echo "side won every game; the interval then comes from the Wilson score interval). The"
    echo "\`games\` column is the number of games each row rests on; colours alternate. Faults"
    echo "are the first player's late, illegal or unreadable replies (0 is the goal)."
} >"$out"

first=""
for spec in ${clocks//,/ }; do
    clock=${spec%%:*}
    games=${spec#*:}
    [[ $games == "$spec" ]] && games=20
    first=${first:-$clock:$games}
    table=$(tournament "docs/results/experiments-${clock}s.jsonl" \
        --player "random=ggp-player serve --agent random" \
        --player "baseline=ggp-player serve --agent alphabeta --eval baseline" \
        --player "improved=ggp-player serve --agent alphabeta --eval improved" \
        --sizes "$sizes" --playclocks "$clock" --games "$games")
    section "Round robin, play clock ${clock} s, $games games per pairing and size" "$table"
    if [[ $clock:$games == "$first" ]]; then
        # The target: improved scores at least 95% against random on 5x5 and 8x8.
        table=$(tournament "docs/results/improved-vs-random-${clock}s.jsonl" \
            --player "improved=ggp-player serve --agent alphabeta --eval improved" \
            --player "random=ggp-player serve --agent random" \
            --sizes 5x5,8x8 --playclocks "$clock" --games $((games * 4)))
        section "Improved against random, play clock ${clock} s, $((games * 4)) games per size" "$table"
    fi
done
echo "wrote $out" >&2
