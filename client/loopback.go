package client

import (
	"net"
	"net/url"
	"strings"
)

// IsLoopbackURL reports whether a URL's host is localhost or a loopback IP
// literal: a server reached there is reached from this host only.
func IsLoopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
