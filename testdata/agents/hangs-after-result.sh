#!/bin/sh
# The session, result included, then it never exits: it waits on a child that sleeps. The child
# holds stdout open too, unless QUIET_CHILD=1.
. "$(dirname "$0")/pids.sh"
cat "$here/session.ndjson" "$here/result.ndjson"
if [ "${QUIET_CHILD:-}" = 1 ]; then sleep 60 > /dev/null & else sleep 60 & fi
record_pid $!
wait
