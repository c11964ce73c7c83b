#!/bin/sh
# A healthy run: the whole session, then exit 0. With NO_RESULT=1 the result is left out (the
# stream is then broken while the agent says it succeeded).
. "$(dirname "$0")/pids.sh"
cat "$here/session.ndjson"
if [ -z "${NO_RESULT:-}" ]; then cat "$here/result.ndjson"; fi
exit 0
