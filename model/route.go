package model

import (
	"regexp"
	"strconv"
	"strings"
)

// MarkerPrefix starts every marker: "lmp-model:" and a scenario name.
const MarkerPrefix = "lmp-model:"

// Marker is the text that chooses the scenario name, e.g.
// "lmp-model:tools". It may stand anywhere in the user's message, so that
// it survives what Hermes puts in front of a message (reply quotes, sender
// prefixes, skills).
func Marker(name string) string { return MarkerPrefix + name }

// markerRE finds a marker as a word of its own.
var markerRE = regexp.MustCompile(`(?:^|[^\w-])` + regexp.QuoteMeta(MarkerPrefix) + `([a-z]+)\b`)

// callIDPrefix starts the ids of the model's tool calls, which carry the
// scenario and the reply they belong to: call_lmp_<scenario>_<reply>_<n>_<nonce>.
const callIDPrefix = "call_lmp_"

// callID is the id of the n-th tool call of reply r of scenario name.
func callID(name string, r, n int, nonce string) string {
	return callIDPrefix + name + "_" + strconv.Itoa(r) + "_" + strconv.Itoa(n) + "_" + nonce
}

// parseCallID reads the scenario and reply index out of a call id the
// model minted.
func parseCallID(id string) (name string, reply int, ok bool) {
	rest, found := strings.CutPrefix(id, callIDPrefix)
	if !found {
		return "", 0, false
	}
	parts := strings.Split(rest, "_")
	if len(parts) != 4 {
		return "", 0, false
	}
	r, err := strconv.Atoi(parts[1])
	if err != nil || r < 0 {
		return "", 0, false
	}
	return parts[0], r, true
}

// A Route is where a request stands in a scenario.
type Route struct {
	Scenario Scenario
	// Reply is the index of the reply this call gets.
	Reply int
	// By says how the scenario was found: "user message" or "tool calls".
	By string
}

// Routing reasons of a request that plays no scenario.
const (
	noMarker      = "no marker in the last user message"
	notLastUser   = "the last message is neither a user message nor a tool result"
	noToolsOffer  = "the marker is quoted in a request that offers no tools (a side call such as a title or a compression)"
	unknownMarker = "unknown scenario"
	pastTheEnd    = "the scenario has no more replies"
)

// RouteOf finds the scenario and reply a request plays. When the last
// message is a user message, its marker chooses the scenario and the
// first reply. When the last messages are tool results, the assistant turn
// before them names the scenario and reply in the ids of the tool calls
// the model made, and the next reply answers; a conversation whose ids are
// not the model's (a client that renames them) is counted instead: one
// reply per assistant turn since the marked user message.
//
// A marker in a request that offers no tools counts only when it is the
// whole message: Hermes' agent loop always offers tools, while its side
// calls (a title, a compression) quote the conversation, markers
// included. ok is false when the request plays no scenario; why says why.
func RouteOf(req *Request) (rt Route, why string, ok bool) {
	msgs := req.Messages
	if len(msgs) == 0 {
		return rt, notLastUser, false
	}
	last := len(msgs) - 1
	switch msgs[last].Role {
	case "user":
		name, found := findMarker(string(msgs[last].Content))
		if !found {
			return rt, noMarker, false
		}
		if len(req.Tools) == 0 && strings.TrimSpace(string(msgs[last].Content)) != Marker(name) {
			return rt, noToolsOffer, false
		}
		return lookupRoute(name, 0, "user message")
	case "tool":
		i := last
		for i >= 0 && msgs[i].Role == "tool" {
			i--
		}
		if i >= 0 && msgs[i].Role == "assistant" {
			for _, c := range msgs[i].ToolCalls {
				if name, r, found := parseCallID(c.ID); found {
					return lookupRoute(name, r+1, "tool calls")
				}
			}
		}
		return countRoute(msgs)
	default:
		return rt, notLastUser, false
	}
}

// countRoute finds the last marked user message and counts the assistant
// turns after it.
func countRoute(msgs []Message) (Route, string, bool) {
	replies := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		switch msgs[i].Role {
		case "assistant":
			replies++
		case "user":
			name, found := findMarker(string(msgs[i].Content))
			if !found {
				return Route{}, noMarker, false
			}
			return lookupRoute(name, replies, "user message")
		}
	}
	return Route{}, noMarker, false
}

func lookupRoute(name string, reply int, by string) (Route, string, bool) {
	sc, found := Lookup(name)
	if !found {
		return Route{}, unknownMarker + " " + strconv.Quote(name), false
	}
	if reply >= len(sc.Replies) {
		return Route{}, pastTheEnd, false
	}
	return Route{Scenario: sc, Reply: reply, By: by}, "", true
}

// MarkerIn returns the scenario name of the last marker in text, known or
// not: "tools" for "please lmp-model:tools now".
func MarkerIn(text string) (name string, ok bool) { return findMarker(text) }

// findMarker returns the scenario name of the last marker in text.
func findMarker(text string) (string, bool) {
	all := markerRE.FindAllStringSubmatch(text, -1)
	if len(all) == 0 {
		return "", false
	}
	return all[len(all)-1][1], true
}
