package client

import (
	"context"
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

// NetworkAddresses are this host's addresses other than loopback,
// link-local, multicast and unspecified ones: where a server listening on
// every interface is reached from the network, as a phone on the LAN
// reaches it. A request from this host to one of them comes from that
// address, not from loopback.
func NetworkAddresses() []net.IP {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var out []net.IP
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok || n.IP.IsLoopback() || n.IP.IsLinkLocalUnicast() || n.IP.IsMulticast() || n.IP.IsUnspecified() {
			continue
		}
		out = append(out, n.IP)
	}
	return out
}

// HostPort is u's host and port, the port defaulting to its scheme's
// (80 for ws and http, 443 for wss and https).
func HostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "wss" || u.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// Answers dials hostport over TCP and hangs up: whether something listens
// there.
func Answers(ctx context.Context, hostport string) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", hostport)
	if err != nil {
		return err
	}
	return c.Close()
}
