#!/bin/sh
# Says something (init, prompt, a first answer), then nothing more, with no tool call running.
. "$(dirname "$0")/pids.sh"
head -n 3 "$here/session.ndjson"
sleep 60 &
record_pid $!
wait
