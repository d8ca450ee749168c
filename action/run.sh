#!/usr/bin/env bash
# The GitHub Action's second step (action.yml): runs lmp-check with the
# action's inputs (INPUT_* variables), writes the reports, its exit code and
# verdict as step outputs, and its summary to the job summary. The step
# fails as lmp-check does: 1 not conformant, 2 usage error or unreachable.
set -uo pipefail

args=()
flag() { # flag NAME VALUE: --NAME VALUE when VALUE is not empty
    if [ -n "$2" ]; then args+=("--$1" "$2"); fi
}
flag url "${INPUT_URL:-}"
flag pair-url "${INPUT_PAIR_URL:-}"
flag driver-url "${INPUT_DRIVER_URL:-}"
flag triggers "${INPUT_TRIGGERS:-}"
flag token-cmd "${INPUT_TOKEN_CMD:-}"
flag list-cmd "${INPUT_LIST_CMD:-}"
flag revoke-cmd "${INPUT_REVOKE_CMD:-}"
flag restart-cmd "${INPUT_RESTART_CMD:-}"
flag crash-cmd "${INPUT_CRASH_CMD:-}"
flag server-log "${INPUT_SERVER_LOG:-}"
flag label-filter "${INPUT_LABEL_FILTER:-}"
flag expect "${INPUT_EXPECT:-}"
for report in "${INPUT_JUNIT_REPORT:-}" "${INPUT_HTML_REPORT:-}" "${INPUT_JSON_REPORT:-}"; do
    if [ -n "$report" ]; then mkdir -p "$(dirname "$report")"; fi
done
flag junit-report "${INPUT_JUNIT_REPORT:-}"
flag html-report "${INPUT_HTML_REPORT:-}"
flag json-report "${INPUT_JSON_REPORT:-}"
case "${INPUT_STRICT:-false}" in
true) args+=(--strict) ;;
false | "") ;;
*) echo "lmp-check: the strict input is \"$INPUT_STRICT\": want true or false" >&2; exit 2 ;;
esac
if [ -n "${INPUT_ARGS:-}" ]; then
    read -r -a extra <<<"$INPUT_ARGS"
    args+=("${extra[@]}")
fi

summary="$(mktemp)"
lmp-check "${args[@]}" | tee "$summary"
code=${PIPESTATUS[0]}

conformant=false
if [ "$code" -eq 0 ]; then conformant=true; fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
    { echo "exit-code=$code"; echo "conformant=$conformant"; } >>"$GITHUB_OUTPUT"
fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    {
        echo "### lmp-check: $([ "$conformant" = true ] && echo conformant || echo "not conformant (exit $code)")"
        echo
        echo '```'
        cat "$summary"
        echo '```'
    } >>"$GITHUB_STEP_SUMMARY"
fi
rm -f "$summary"
exit "$code"
