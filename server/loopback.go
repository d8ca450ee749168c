package server

import (
	"net"
	"net/http"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// forwardingHeaders mark a request relayed by a proxy: behind a proxy on the
// same host every caller looks like loopback (note 13).
var forwardingHeaders = []string{"Forwarded", "X-Forwarded-For", "X-Real-IP"}

// LoopbackOnly serves h only to requests whose peer is a loopback address
// and that carry none of Forwarded, X-Forwarded-For, X-Real-IP (P-1, note
// 13). Anything else gets 403 with a JSON error naming the reason.
func LoopbackOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if reason := refuseNonLoopback(r); reason != "" {
			writeJSON(w, http.StatusForbidden, lmp.HTTPError{Error: reason})
			return
		}
		h.ServeHTTP(w, r)
	})
}

// refuseNonLoopback returns why r may not reach a loopback-only endpoint,
// or "" when it may.
func refuseNonLoopback(r *http.Request) string {
	for _, name := range forwardingHeaders {
		if _, ok := r.Header[http.CanonicalHeaderKey(name)]; ok {
			return "loopback only: request carries " + name + " (relayed by a proxy)"
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return "loopback only: peer " + host + " is not a loopback address"
	}
	return ""
}
