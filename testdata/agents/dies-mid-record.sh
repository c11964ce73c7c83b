#!/bin/sh
# Killed halfway through a record: the first three records, half of the fourth, SIGKILL.
. "$(dirname "$0")/pids.sh"
head -n 3 "$here/session.ndjson"
sed -n 4p "$here/session.ndjson" | cut -c1-100 | tr -d '\n'
kill -KILL $$
