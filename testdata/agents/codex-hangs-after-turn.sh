#!/bin/sh
# `codex exec --json`: a turn to its `turn.completed`, then the process never exits.
. "$(dirname "$0")/pids.sh"
cat "$here/codex-session.ndjson" "$here/codex-completed.ndjson"
sleep 60 &
record_pid $!
wait
