#!/bin/sh
# Hangs after its result and ignores SIGTERM; its child inherits that. Only SIGKILL ends them.
trap '' TERM
. "$(dirname "$0")/pids.sh"
cat "$here/session.ndjson" "$here/result.ndjson"
sleep 60 &
record_pid $!
while :; do wait; done
