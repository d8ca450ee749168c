package conformance

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
)

// SkipNoLAN starts the reason of a spec skipped because no address of this
// host other than loopback reaches the target.
const SkipNoLAN = "no address other than loopback reaches the target"

// lanDialTimeout bounds the TCP probe of one candidate address: on this
// host a listening port answers at once, a closed one refuses at once.
const lanDialTimeout = 2 * time.Second

// LANBase is the target reached at an address that is not loopback: how a
// phone on the LAN, or anyone else on the network, reaches it.
type LANBase struct {
	// Host is ip:port (or the target's own host:port when it is not
	// loopback).
	Host string
	// HTTP is the http(s) base URL at Host; WS the ws(s) URL of /ws there.
	HTTP, WS string
}

// LANBases returns the target at every address of it that is not loopback
// and answers a TCP connection: the target's own host when its URL is not a
// loopback address (lmp-check then runs elsewhere on the network, or on the
// server's host through its network address), else each network address of
// this host (IPv4 and IPv6, not link-local) on the target's port, which a
// server listening on every interface answers. A request from this host to
// one of its own network addresses comes from that address, not from
// loopback: the peer the server sees is a network peer, as a phone on the
// LAN is. With none, it returns the reason, which starts with SkipNoLAN.
func (t *Target) LANBases(ctx context.Context) ([]LANBase, string) {
	u, err := url.Parse(t.WSURL)
	if err != nil {
		return nil, fmt.Sprintf("%s: target URL %q: %v", SkipNoLAN, t.WSURL, err)
	}
	httpScheme := "http"
	if u.Scheme == "wss" {
		httpScheme = "https"
	}
	hosts := []string{client.HostPort(u)}
	if client.IsLoopbackURL(t.WSURL) {
		_, port, _ := net.SplitHostPort(hosts[0])
		hosts = nil
		for _, ip := range client.NetworkAddresses() {
			hosts = append(hosts, net.JoinHostPort(ip.String(), port))
		}
		if len(hosts) == 0 {
			return nil, SkipNoLAN + ": this host has no network address besides loopback"
		}
	}
	var bases []LANBase
	var refused []string
	for _, h := range hosts {
		dialCtx, cancel := context.WithTimeout(ctx, lanDialTimeout)
		err := client.Answers(dialCtx, h)
		cancel()
		if err != nil {
			refused = append(refused, h)
			continue
		}
		bases = append(bases, LANBase{Host: h, HTTP: httpScheme + "://" + h, WS: u.Scheme + "://" + h + u.EscapedPath()})
	}
	if len(bases) == 0 {
		return nil, fmt.Sprintf("%s: nothing listens at %s (the server listens on loopback only; `lmp-check run --listen :0` serves the in-process server on every interface)",
			SkipNoLAN, strings.Join(refused, ", "))
	}
	return bases, ""
}
