package server

import (
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// forwardingHeaders mark a request relayed by a proxy: behind a proxy on the
// same host every caller looks like loopback (note 13). Every header of the
// form X-Forwarded-* is refused too.
var forwardingHeaders = []string{
	"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto",
	"X-Real-IP", "Via", "X-Client-IP", "True-Client-IP", "CF-Connecting-IP",
	"Fastly-Client-IP", "X-Cluster-Client-IP", "X-Original-Forwarded-For",
	"Client-IP", "X-Originating-IP", "X-Remote-IP", "X-Remote-Addr",
	"X-ProxyUser-IP", "X-Envoy-External-Address", "X-Azure-ClientIP",
}

// ForwardingHeaders lists the headers that make a loopback-only endpoint
// refuse a request, besides every X-Forwarded-* header.
func ForwardingHeaders() []string { return append([]string(nil), forwardingHeaders...) }

// LoopbackOnly serves h only to requests whose peer is a loopback address,
// whose Host names a loopback address, and that carry none of the
// forwarding headers (P-1, note 13), and that no web page of another site
// sent (refuseCrossSite). Anything else gets 403 with a JSON error naming
// the reason. Server.LoopbackOnly also accepts the public
// URL's host.
func LoopbackOnly(h http.Handler) http.Handler { return loopbackOnly(h, nil) }

// LoopbackOnly is the package's LoopbackOnly for this server: the Host may
// also be the host of Config.PublicURL.
func (s *Server) LoopbackOnly(h http.Handler) http.Handler {
	return loopbackOnly(h, s.hostAllowed)
}

func loopbackOnly(h http.Handler, hostOK func(string) bool) http.Handler {
	if hostOK == nil {
		hostOK = loopbackHost
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if reason := refuseNonLoopback(r); reason != "" {
			writeJSON(w, http.StatusForbidden, lmp.HTTPError{Error: reason})
			return
		}
		if !hostOK(r.Host) {
			refuseHost(w, r)
			return
		}
		if reason := refuseCrossSite(r); reason != "" {
			writeJSON(w, http.StatusForbidden, lmp.HTTPError{Error: reason})
			return
		}
		h.ServeHTTP(w, r)
	})
}

// refuseNonLoopback returns why r may not reach a loopback-only endpoint,
// or "" when it may.
func refuseNonLoopback(r *http.Request) string {
	for name := range r.Header {
		if strings.HasPrefix(name, "X-Forwarded-") {
			return "loopback only: request carries " + name + " (relayed by a proxy)"
		}
	}
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

// hostAllowed reports whether a request's Host names this server: a
// loopback address, or the host of Config.PublicURL. Any other name may be
// a DNS rebinding: a web page whose name an attacker points at 127.0.0.1
// reaches the server from the user's browser with the attacker's Host (and
// a matching Origin), and could otherwise pair itself.
func (s *Server) hostAllowed(hostport string) bool {
	if loopbackHost(hostport) {
		return true
	}
	return s.publicHost != "" && strings.EqualFold(hostOnly(hostport), s.publicHost)
}

// loopbackHost reports whether hostport names a loopback address:
// localhost (or a name under .localhost, RFC 6761), or a loopback IP.
func loopbackHost(hostport string) bool {
	h := strings.ToLower(strings.TrimSuffix(hostOnly(hostport), "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// hostOnly strips the port and the brackets of an IPv6 literal.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
}

// publicHostOf is the host of a ws:// or wss:// URL, "" when it has none.
func publicHostOf(publicURL string) string {
	u, err := url.Parse(publicURL)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// refuseHost answers a request whose Host is not this server's.
func refuseHost(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusForbidden, lmp.HTTPError{
		Error: "host " + lmp.Shorten(r.Host) + " is not this server: use a loopback address or the public URL's host",
	})
}
