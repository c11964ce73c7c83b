#!/bin/sh
# Fails before its first event, as an agent that is not logged in does.
. "$(dirname "$0")/pids.sh"
echo "Error: Authentication required. Please run 'agent login' first." >&2
exit 1
