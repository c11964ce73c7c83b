#!/bin/sh
# Starts a tool call (the first four records of the session) and never completes it.
. "$(dirname "$0")/pids.sh"
head -n 4 "$here/session.ndjson"
sleep 60 &
record_pid $!
wait
