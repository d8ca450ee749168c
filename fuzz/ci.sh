#!/bin/sh
# A short real fuzzing pass of every native fuzz target, for CI.
#
#   fuzz/ci.sh [PER_TARGET_TIME]     default 8s; 9 targets ≈ 90 s in all
#
# `go test -fuzz` takes one package and one target at a time, hence the
# loop. A crasher is written to <package>/testdata/fuzz/<Target>/: keep it
# there (it becomes a regression input replayed by every `go test`), fix the
# bug, and commit both.
set -eu
cd "$(dirname "$0")/.."
budget="${1:-8s}"
status=0
for spec in \
	./fuzz:FuzzDecodeFrame \
	./fuzz:FuzzQRPayload \
	./fuzz:FuzzMockScript \
	./fuzz:FuzzServerInbound \
	./schema:FuzzValidateFrame \
	./server:FuzzEventLog \
	./server:FuzzIdemWindow \
	./server:FuzzApprovalResolve \
	./fuzz/campaign:FuzzEpisodeRoundTrip
do
	pkg="${spec%%:*}"
	target="${spec#*:}"
	echo "fuzz: $pkg $target for $budget"
	if ! go test -run '^$' -fuzz "^${target}\$" -fuzztime "$budget" "$pkg"; then
		echo "fuzz: $target failed; the crasher is under $pkg/testdata/fuzz/$target/" >&2
		status=1
	fi
done
exit $status
