#!/usr/bin/env bash
# The OTLP/JSON of `sjlint fmt --to otlp`, for one stream of every agent (with and without
# --otlp-content), parsed against the official protobuf definitions (check_json.py). The
# definitions come from PyPI's opentelemetry-proto, installed once into a small virtualenv kept
# outside the clone (${XDG_CACHE_HOME:-$HOME/.cache}/sjlint-ci/otlp-proto) and reused after.
# Expects target/debug/sjlint (cargo build); SJLINT overrides it.
set -euo pipefail
started=$SECONDS
cd "$(dirname "$0")/../.."
sjlint=${SJLINT:-target/debug/sjlint}
venv=${XDG_CACHE_HOME:-$HOME/.cache}/sjlint-ci/otlp-proto
if [ ! -e "$venv/.installed" ]; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check 'opentelemetry-proto>=1.27,<2'
    touch "$venv/.installed"
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
streams=(
    testdata/healthy/parallel-shell-calls-complete-out-of-order.ndjson
    testdata/agents/claude/tool-run.ndjson
    testdata/agents/claude/subagent.ndjson
    testdata/agents/codex/tool-run.ndjson
    testdata/agents/gemini/tool-run.ndjson
    testdata/agents/grok/tool-run.ndjson
    testdata/agents/opencode/tool-run.ndjson
    testdata/agents/pi/tool-run.ndjson
    testdata/agents/copilot/tool-run.ndjson
    testdata/agents/droid/tool-run.ndjson
    testdata/agents/kimi/tool-run.ndjson
    testdata/agents/qwen/tool-run.ndjson
    testdata/agents/amp/tool-run.ndjson
)
files=()
for s in "${streams[@]}"; do
    name=$(echo "$s" | tr '/' '_')
    "$sjlint" fmt --to otlp "$s" >"$out/$name.json"
    "$sjlint" fmt --to otlp --otlp-content "$s" >"$out/$name.content.json"
    files+=("$out/$name.json" "$out/$name.content.json")
done
echo "check_json.sh: install and conversions took $((SECONDS - started)) s"
"$venv/bin/python" tests/otlp/check_json.py "${files[@]}"
