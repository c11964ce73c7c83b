#!/bin/sh
# Fails before its first event, as an agent that is not logged in does. HOSTILE=1: its first
# line is a terminal escape sequence and 3000 characters long.
. "$(dirname "$0")/pids.sh"
if [ "${HOSTILE:-}" = 1 ]; then
    printf '\033]0;pwned\007%03000d\n' 0 >&2
fi
echo "Error: Authentication required. Please run 'agent login' first." >&2
exit 1
