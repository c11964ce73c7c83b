#!/bin/sh
# Fails before its first event after long lines of a log on stderr: thirty lines of 3000
# characters, one of 100,000 characters, then the one line that says why it failed.
. "$(dirname "$0")/pids.sh"
i=0
while [ "$i" -lt 30 ]; do
    printf 'log %02d %03000d\n' "$i" 0 >&2
    i=$((i + 1))
done
printf 'trace %0100000d\n' 7 >&2
echo "Error: Authentication required. Please run 'agent login' first." >&2
exit 1
