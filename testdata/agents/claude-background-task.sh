#!/bin/sh
# Claude Code with a background task: a session and its result, then, 0.4 s later, a second
# session in the same process (init, an answer), and 0.6 s after that its result; then exit 0.
. "$(dirname "$0")/pids.sh"
cat "$here/claude-session.ndjson" "$here/claude-result.ndjson"
sleep 0.4
head -n 1 "$here/claude-session.ndjson"
sed -n 4p "$here/claude-session.ndjson"
sleep 0.6
cat "$here/claude-result.ndjson"
