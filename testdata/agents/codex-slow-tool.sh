#!/bin/sh
# `codex exec --json`: a turn whose command runs for a moment (0.3 s between the item's start
# and its completion), to its `turn.completed`, then it exits. Codex writes no times of its own.
. "$(dirname "$0")/pids.sh"
head -n 3 "$here/codex-session.ndjson"
sleep 0.3
tail -n +4 "$here/codex-session.ndjson"
cat "$here/codex-completed.ndjson"
