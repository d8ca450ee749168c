package server

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// refuseCrossSite returns why a request that a web page made from another
// site may not reach a loopback-only endpoint, or "" when it may. A page
// the user has open can send "simple" requests (a POST of text/plain, a
// GET) to 127.0.0.1 without any preflight; the browser runs them and only
// hides the answer, so the page could mint tokens, send notifications or
// answer approvals. Browsers say where a request comes from:
//
//   - Sec-Fetch-Site (Fetch Metadata, every current browser): only
//     same-origin (the dashboard's own page) and none (typed in the
//     address bar, a bookmark) are served. The one exception is a
//     top-level navigation with a safe method (GET, HEAD): a link to the
//     dashboard followed from another page opens it, and runs nothing.
//   - Origin, which browsers send with every cross-origin request but a
//     GET navigation: it must name this Host; "null" (a sandboxed frame, a
//     file: page) never does.
//
// Clients that are not browsers (the lmp-server CLI, curl, the driver
// library) send neither header and are served: the loopback and Host
// checks stand for them.
func refuseCrossSite(r *http.Request) string {
	site := r.Header.Get("Sec-Fetch-Site")
	switch site {
	case "", "same-origin", "none":
	default:
		if !topLevelNavigation(r) {
			return "cross-site request refused: Sec-Fetch-Site is " + quoteHeader(site) + "; only this server's own pages may call it"
		}
	}
	origin, ok := r.Header["Origin"]
	if !ok {
		return ""
	}
	if len(origin) != 1 || !sameOrigin(origin[0], r.Host) {
		return "cross-site request refused: Origin " + quoteHeader(strings.Join(origin, ", ")) + " is not this server (" + quoteHeader(r.Host) + ")"
	}
	return ""
}

// topLevelNavigation reports whether r is the browser opening a page in a
// tab (a followed link), with a method that changes nothing.
func topLevelNavigation(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) &&
		r.Header.Get("Sec-Fetch-Mode") == "navigate" && r.Header.Get("Sec-Fetch-Dest") == "document"
}

// sameOrigin reports whether the Origin header names an http or https
// origin on host (host:port as in the request's Host).
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	if u.Path != "" || u.RawQuery != "" || u.User != nil {
		return false // not an origin
	}
	return strings.EqualFold(u.Host, host)
}

// quoteHeader bounds a header's value for an error message.
func quoteHeader(v string) string {
	const keep = 80
	if len(v) > keep {
		v = v[:keep] + "…"
	}
	return `"` + lmp.Printable(v) + `"`
}
