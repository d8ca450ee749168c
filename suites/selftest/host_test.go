package selftest

import (
	"net"

	"github.com/loomi-lmp/lmpkit/internal/mutant"
)

// hostAddresses are this host's addresses other than loopback (and
// link-local): where the self-test's in-process servers, listening on
// every interface (inProcessListen), are reached as a phone on the LAN
// reaches a server. The LAN specs (suites/lan.go) need one.
func hostAddresses() []net.IP {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var out []net.IP
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() && !n.IP.IsMulticast() {
			out = append(out, n.IP)
		}
	}
	return out
}

// hostLacks returns what this host lacks of m's needs_host, or "".
func hostLacks(m mutant.Mutant, addrs []net.IP) string {
	switch m.NeedsHost {
	case mutant.NetworkAddress:
		if len(addrs) == 0 {
			return "an address other than loopback"
		}
	case mutant.PrivateAddress:
		for _, ip := range addrs {
			if ip.IsPrivate() {
				return ""
			}
		}
		return "an address in a private range (RFC 1918 or fc00::/7)"
	}
	return ""
}
