package selftest

import (
	"net"

	"github.com/loomi-lmp/lmpkit/internal/mutant"
)

// hostLacks returns what this host lacks of m's needs_host, or "": addrs
// are its network addresses (client.NetworkAddresses), where the
// self-test's in-process servers, listening on every interface
// (inProcessListen), are reached as a phone on the LAN reaches a server.
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
