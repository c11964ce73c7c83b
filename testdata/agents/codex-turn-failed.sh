#!/bin/sh
# `codex exec --json`: a turn that ends in `turn.failed`, then exit 1.
. "$(dirname "$0")/pids.sh"
cat "$here/codex-session.ndjson" "$here/codex-failed.ndjson"
exit 1
