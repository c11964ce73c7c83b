#!/bin/sh
# Claude Code runs a long tool call: a `tool_use` (Bash, toolu_01Bash7QwErTy) and then no
# output at all, as while a slow command runs; the `tool_result` never comes.
. "$(dirname "$0")/pids.sh"
head -n 2 "$here/claude-session.ndjson"
sleep 60 &
record_pid $!
wait
