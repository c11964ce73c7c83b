#!/usr/bin/env bash
# Whole-binary timings on a generated stream: sjlint (one thread, all cores, from a pipe; the pipe
# alone) beside jq and a Python per-line loop. Prints a Markdown table of medians; see docs/performance.md.
#   bash benches/compare.sh [SIZE]      (default 1G; needs jq and python3 for those rows)
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1G}
runs=${RUNS:-3}
cargo build --release --quiet --bin sjlint --example gen_stream
file=${TMPDIR:-/tmp}/sjlint-compare-$size.ndjson
[ -s "$file" ] || ./target/release/examples/gen_stream "$size" > "$file"
bytes=$(stat -c %s "$file")

# Median wall time of $runs runs of a shell command, in seconds; peak RSS of the last run.
measure() {
    local times=() rss=0 out tmp
    tmp=$(mktemp)
    for _ in $(seq "$runs"); do
        /usr/bin/time -f '%e %M' -o "$tmp" sh -c "$1" >/dev/null 2>&1 || true
        out=$(tail -1 "$tmp")
        times+=("${out% *}")
        rss=${out#* }
    done
    rm -f "$tmp"
    local median
    median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
    echo "$median $rss"
}

row() {
    local name=$1 cmd=$2
    read -r secs rss < <(measure "$cmd")
    awk -v n="$name" -v s="$secs" -v b="$bytes" -v r="$rss" \
        'BEGIN { printf "| %s | %.2f s | %.0f MB/s | %.1f MiB |\n", n, s, b / s / 1e6, r / 1024 }'
}

echo "file: $(( bytes / 1000000 )) MB, $(wc -l < "$file") lines; $runs runs each, median"
echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'), $(free -g | awk '/Mem:/ {print $2}') GiB"
echo
echo "| command | time | throughput | peak RSS |"
echo "|---|---|---|---|"
sj=./target/release/sjlint
row "sjlint check (one thread)" "$sj check -q --progress never --jobs 1 $file"
row "sjlint check (all cores)" "$sj check -q --progress never $file"
row "cat file \\| sjlint check" "cat $file | $sj check -q --progress never"
row "cat file \\| wc -c (the pipe alone)" "cat $file | wc -c"
if command -v jq >/dev/null; then
    row "jq empty" "jq empty < $file"
fi
row "python3 json.loads per line" "python3 -c 'import json,sys
for line in sys.stdin.buffer: json.loads(line)' < $file"
