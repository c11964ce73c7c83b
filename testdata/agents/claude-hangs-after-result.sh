#!/bin/sh
# Claude Code's stream-json hang: a whole session, result included, then it never exits.
. "$(dirname "$0")/pids.sh"
cat "$here/claude-session.ndjson" "$here/claude-result.ndjson"
sleep 60 &
record_pid $!
wait
