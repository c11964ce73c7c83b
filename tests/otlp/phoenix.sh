#!/usr/bin/env bash
# `sjlint run --otlp-endpoint` against a real OTLP receiver: Arize Phoenix, offline. Phoenix is
# installed once into a virtualenv kept outside the clone
# (${XDG_CACHE_HOME:-$HOME/.cache}/sjlint-ci/phoenix, about 850 MB, a few minutes the first
# time; reused after), started on a free port with a temporary working directory, and sent two
# runs of fake agents (testdata/agents/replay.sh): a cursor-agent run with three parallel shell
# calls, and a Claude Code run whose Task call starts a subagent with two calls of its own. The
# spans Phoenix stored are then read back (its REST API) and checked by phoenix_check.py, which
# prints them. Phoenix is stopped on exit, whatever happens.
# Expects target/debug/sjlint (cargo build); SJLINT overrides it.
set -euo pipefail
started=$SECONDS
cd "$(dirname "$0")/../.."
root=$PWD
sjlint=${SJLINT:-$root/target/debug/sjlint}
venv=${XDG_CACHE_HOME:-$HOME/.cache}/sjlint-ci/phoenix
if [ ! -e "$venv/.installed" ]; then
    echo "installing arize-phoenix into $venv (once)"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check 'arize-phoenix>=20,<21'
    touch "$venv/.installed"
fi

work=$(mktemp -d)
phoenix_pid=
cleanup() {
    if [ -n "$phoenix_pid" ]; then
        kill "$phoenix_pid" 2>/dev/null || true
        wait "$phoenix_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
port=$(free_port)
grpc_port=$(free_port)
export PHOENIX_WORKING_DIR=$work/phoenix PHOENIX_PORT=$port PHOENIX_GRPC_PORT=$grpc_port
export PHOENIX_HOST=127.0.0.1 PHOENIX_TELEMETRY_ENABLED=false DO_NOT_TRACK=1
mkdir -p "$PHOENIX_WORKING_DIR"
"$venv/bin/phoenix" serve >"$work/phoenix.log" 2>&1 &
phoenix_pid=$!
base=http://127.0.0.1:$port
healthy() {
    python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1] + "/healthz", timeout=2)' "$base" 2>/dev/null
}
for _ in $(seq 1 240); do
    if healthy; then break; fi
    if ! kill -0 "$phoenix_pid" 2>/dev/null; then
        echo "phoenix did not start:" >&2
        tail -30 "$work/phoenix.log" >&2
        exit 1
    fi
    sleep 0.5
done
healthy || { echo "phoenix is not answering on $base" >&2; tail -30 "$work/phoenix.log" >&2; exit 1; }

agents=$root/testdata/agents
STREAM=$root/testdata/healthy/parallel-shell-calls-complete-out-of-order.ndjson \
    "$sjlint" run --progress never --otlp-endpoint "$base" -- "$agents/replay.sh" >/dev/null 2>"$work/run1.err" \
    || { cat "$work/run1.err" >&2; exit 1; }
STREAM=$agents/claude/subagent.ndjson \
    "$sjlint" run --progress never --otlp-endpoint "$base" --otlp-header "x-sjlint-test=1" -- "$agents/replay.sh" >/dev/null 2>"$work/run2.err" \
    || { cat "$work/run2.err" >&2; exit 1; }
if grep -q "OTLP export" "$work/run1.err" "$work/run2.err"; then
    echo "sjlint run warned about the export:" >&2
    cat "$work/run1.err" "$work/run2.err" >&2
    exit 1
fi
echo "phoenix.sh: install, start and the two runs took $((SECONDS - started)) s"
"$venv/bin/python" "$root/tests/otlp/phoenix_check.py" "$base"
