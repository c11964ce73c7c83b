#!/bin/sh
# The session, result included, then it never exits (a foreground child sleeps).
. "$(dirname "$0")/pids.sh"
cat "$here/session.ndjson" "$here/result.ndjson"
sleep 60 &
record_pid $!
wait
