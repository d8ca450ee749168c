#!/bin/sh
# A short real fuzzing pass of every native fuzz target, for CI.
#
#   fuzz/ci.sh [PER_TARGET_TIME]     default 6s; 16 targets ≈ 96 s of fuzzing
#
# The list holds every native fuzz target of the module (a test in
# internal/packaging checks it against `go test -list '^Fuzz' ./...`).
# `go test -fuzz` takes one package and one target at a time, hence the
# loop. A crasher is written to <package>/testdata/fuzz/<Target>/: keep it
# there (it becomes a regression input replayed by every `go test`), fix the
# bug, and commit both.
set -eu
cd "$(dirname "$0")/.."
budget="${1:-6s}"

status=0
for spec in \
	./fuzz:FuzzDecodeFrame \
	./fuzz:FuzzQRPayload \
	./fuzz:FuzzMockScript \
	./fuzz:FuzzServerInbound \
	./lmp:FuzzUnmarshalMatchesPruned \
	./schema:FuzzValidateFrame \
	./schema:FuzzCompiledMatchesReference \
	./server:FuzzEventLog \
	./server:FuzzIdemWindow \
	./server:FuzzApprovalResolve \
	./server:FuzzTruncate \
	./server:FuzzAppendJSON \
	./dashboard:FuzzScanEnvelope \
	./internal/bounded:FuzzMap \
	./fuzz/campaign:FuzzEpisodeRoundTrip \
	./fuzz/campaign:FuzzEnvelopeScan
do
	pkg="${spec%%:*}"
	target="${spec#*:}"
	echo "fuzz: $pkg $target for $budget"
	corpus="$pkg/testdata/fuzz/$target"
	before=$(ls "$corpus" 2>/dev/null | wc -l)
	out=$(mktemp)
	if go test -run '^$' -fuzz "^${target}\$" -fuzztime "$budget" "$pkg" >"$out" 2>&1; then
		cat "$out"
	else
		cat "$out"
		after=$(ls "$corpus" 2>/dev/null | wc -l)
		# A run that wrote no input and failed only on the engine's own
		# deadline (fuzz/deadline-only.awk says why that is no finding).
		if [ "$after" -eq "$before" ] && awk -f fuzz/deadline-only.awk <"$out"; then
			echo "fuzz: $target ran its $budget and no input failed; the engine reported its own deadline as a failure (go.dev/issue/75804), which is not a finding"
		else
			echo "fuzz: $target failed; the crasher is under $corpus/" >&2
			status=1
		fi
	fi
	rm -f "$out"
done
exit $status
