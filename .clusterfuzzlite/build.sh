#!/bin/bash -eu
# Builds every native Go fuzz target of the module as a libFuzzer binary,
# for ClusterFuzzLite and OSS-Fuzz. A target is registered here once: a test
# (internal/packaging) requires this list to be exactly the targets that
# `go test -list '^Fuzz' ./...` finds, so a new target is fuzzed at scale
# the day it lands.
#
#   compile_native_go_fuzzer PACKAGE TARGET BINARY
cd "$SRC/lmpkit"
compile_native_go_fuzzer github.com/loomi-lmp/lmpkit/dashboard     FuzzScanEnvelope     fuzz_scan_envelope
compile_native_go_fuzzer github.com/loomi-lmp/lmpkit/fuzz          FuzzDecodeFrame      fuzz_decode_frame
compile_native_go_fuzzer github.com/loomi-lmp/lmpkit/fuzz          FuzzQRPayload        fuzz_qr_payload
compile_native_go_fuzzer github.com/loomi-lmp/lmpkit/fuzz          FuzzMockScript       fuzz_mock_script
compile_native_go_fuzzer github.com/loomi-lmp/lmpkit/fuzz          FuzzServerInbound    fuzz_server_inbound
compile_native_go_fuzzer github.com/loomi-lmp/lmpkit/fuzz/campaign FuzzEpisodeRoundTrip fuzz_episode_round_trip
compile_native_go_fuzzer github.com/loomi-lmp/lmpkit/fuzz/campaign FuzzEnvelopeScan     fuzz_envelope_scan
compile_native_go_fuzzer github.com/loomi-lmp/lmpkit/lmp           FuzzUnmarshalMatchesPruned fuzz_unmarshal_matches_pruned
compile_native_go_fuzzer github.com/loomi-lmp/lmpkit/schema        FuzzValidateFrame    fuzz_validate_frame
compile_native_go_fuzzer github.com/loomi-lmp/lmpkit/schema        FuzzCompiledMatchesReference fuzz_compiled_matches_reference
compile_native_go_fuzzer github.com/loomi-lmp/lmpkit/server        FuzzAppendJSON       fuzz_append_json
compile_native_go_fuzzer github.com/loomi-lmp/lmpkit/server        FuzzEventLog         fuzz_event_log
compile_native_go_fuzzer github.com/loomi-lmp/lmpkit/server        FuzzIdemWindow       fuzz_idem_window
compile_native_go_fuzzer github.com/loomi-lmp/lmpkit/server        FuzzApprovalResolve  fuzz_approval_resolve
compile_native_go_fuzzer github.com/loomi-lmp/lmpkit/server        FuzzTruncate         fuzz_truncate
compile_native_go_fuzzer github.com/loomi-lmp/lmpkit/internal/bounded FuzzMap            fuzz_bounded_map
