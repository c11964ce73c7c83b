# Sourced by the fake agents: records a pid in $PIDS when it is set.
record_pid() {
    if [ -n "${PIDS:-}" ]; then echo "$1" >> "$PIDS"; fi
}
here=$(dirname "$0")
record_pid $$
