#!/bin/sh
# The session, then exit 0, while a process it started in a session of its own (out of reach
# of its process group) keeps stdout open for a few seconds. It exits only once that process
# has left the group. Needs $PIDS (the escaped pid goes to $PIDS.escaped, not to $PIDS).
. "$(dirname "$0")/pids.sh"
cat "$here/session.ndjson" "$here/result.ndjson"
setsid sh -c 'echo $$ > "$PIDS.escaped"; exec sleep 3' &
while [ ! -s "$PIDS.escaped" ]; do sleep 0.01; done
exit 0
