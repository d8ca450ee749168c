package model

import (
	"fmt"
	"strings"
)

// HermesConfig is the config.yaml fragment that makes a Hermes gateway use
// the scripted model at baseURL ("http://HOST:PORT/v1"): the custom
// provider and its context length, manual approvals (so the approval
// scenario reaches the adapter, and no auxiliary model decides first),
// reasoning deltas for stream hooks, no side calls (titles, memory and
// skill reviews) that would take the model's time and add turns, and
// stream timeouts that let the long scenario run.
func HermesConfig(baseURL string, opts Options) string {
	if opts.Name == "" {
		opts.Name = DefaultName
	}
	if opts.ContextLength == 0 {
		opts.ContextLength = DefaultContextLength
	}
	r := strings.NewReplacer("{url}", baseURL, "{name}", opts.Name, "{ctx}", fmt.Sprint(opts.ContextLength))
	return r.Replace(hermesConfigTemplate)
}

const hermesConfigTemplate = `# config.yaml fragment: Hermes' model is lmp-check's scripted model ({url}).
# Merge it into ~/.hermes/config.yaml (or the profile's); keep your
# platform plugin in plugins.enabled.
model:
  provider: custom
  base_url: {url}
  default: {name}
  api_key: lmp-check          # any value: the scripted model accepts any bearer token
  context_length: {ctx}
# The approval scenario's rm -r asks the adapter, not an auxiliary model.
approvals:
  mode: manual
plugins:
  stream_reasoning_deltas: true   # on_stream_delta(kind="reasoning") for the reply scenario
# No side calls: they would reach the model and start forks in the chat.
auxiliary:
  title_generation:
    enabled: false
memory:
  nudge_interval: 0
skills:
  creation_nudge_interval: 0
# Stream timeouts: the long scenario streams one chunk a second until
# /stop; these keep Hermes from cutting it (older Hermes reads only the
# environment: HERMES_STREAM_READ_TIMEOUT=1800 HERMES_STREAM_STALE_TIMEOUT=900).
providers:
  custom:
    request_timeout_seconds: 1800
    stale_timeout_seconds: 900
`
