#!/bin/sh
# forgetful.sh: serverctl.sh for a server that loses its store whenever it
# stops, so that seq starts again and paired devices are forgotten; the
# restart specs must fail it.
set -eu
case "${1:-}" in
restart|crash)
	"$(dirname "$0")/serverctl.sh" stop
	rm -rf "$LMP_DIR/data"
	exec "$(dirname "$0")/serverctl.sh" start
	;;
esac
exec "$(dirname "$0")/serverctl.sh" "$@"
