#!/bin/sh
# Gemini CLI's stream-json: a run to its `result`, then the process never exits.
. "$(dirname "$0")/pids.sh"
cat "$here/gemini/tool-run.ndjson"
sleep 60 &
record_pid $!
wait
