#!/bin/sh
# Writes $RECORDS copies of one 1 KiB assistant record as fast as it can, then the result.
. "$(dirname "$0")/pids.sh"
pad=$(printf '%1000s' '' | tr ' ' 'x')
head -n 2 "$here/session.ndjson"
yes "{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"$pad\"}]},\"session_id\":\"715a85db-b49c-5c29-b369-3ae58f467c71\"}" | head -n "${RECORDS:-1000}"
cat "$here/result.ndjson"
