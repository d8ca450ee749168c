#!/bin/sh
# serverctl.sh start|restart|crash|stop|devices|revoke DEVICE_ID
#
# Drives one server process for lmp-check's target commands: the worked
# example of CI.md, run by cmd/lmp-check's tests against lmp-server. For
# another server, change start(), devices and revoke.
#
#   LMP_SERVER  the server binary
#   LMP_ADDR    host:port it listens on (the same across restarts)
#   LMP_DIR     its state: data/ (the store), server.pid, server.log
#   LMP_FLAGS   more flags for the server (optional)
set -eu
pidfile="$LMP_DIR/server.pid"

start() {
	# shellcheck disable=SC2086 # LMP_FLAGS is a list of flags
	"$LMP_SERVER" serve --addr "$LMP_ADDR" --data "$LMP_DIR/data" --no-qr ${LMP_FLAGS:-} \
		>>"$LMP_DIR/server.log" 2>&1 </dev/null &
	echo $! >"$pidfile"
}

# stop SIGNAL: signal the server and return once it has exited (a zombie
# has exited: nobody may be left to reap it).
stop() {
	pid=$(cat "$pidfile")
	kill -s "$1" "$pid" 2>/dev/null || return 0
	while state=$(ps -o stat= -p "$pid" 2>/dev/null) && [ "${state#Z}" = "$state" ]; do
		sleep 0.05
	done
}

case "${1:-}" in
start) start ;;
restart) stop TERM && start ;;
crash) stop KILL && start ;;
stop) stop TERM ;;
devices) "$LMP_SERVER" devices --addr "$LMP_ADDR" ;;
revoke) "$LMP_SERVER" revoke --addr "$LMP_ADDR" "$2" >/dev/null ;;
*) echo "usage: serverctl.sh start|restart|crash|stop|devices|revoke DEVICE_ID" >&2; exit 2 ;;
esac
