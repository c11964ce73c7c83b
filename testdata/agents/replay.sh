#!/bin/sh
# After $DELAY seconds (if set: a slow start-up), writes the stream in the file $STREAM (if
# set), then does as its argument (else $THEN) says:
#   (none)    exits 0
#   hang      never exits
#   no-login  prints an authentication error on stderr and exits 1
#   interrupt sends SIGINT to its parent (`sjlint run`), as Ctrl-C would, then waits
. "$(dirname "$0")/pids.sh"
if [ -n "${DELAY:-}" ]; then
    sleep "$DELAY" &
    record_pid $!
    wait
fi
if [ -n "${STREAM:-}" ]; then cat "$STREAM"; fi
case "${1:-${THEN:-}}" in
    hang)
        sleep 60 &
        record_pid $!
        wait
        ;;
    interrupt)
        kill -INT "$PPID"
        sleep 60 &
        record_pid $!
        wait
        ;;
    no-login)
        echo "Error: Authentication required. Please run 'agent login' first." >&2
        exit 1
        ;;
esac
