package server

import (
	"fmt"
	"net"
	"os"
)

// EnvAllowInsecureBind names the variable that, set to "true", lets the
// server listen on a non-loopback address without TLS (S-3).
const EnvAllowInsecureBind = "LOOMI_ALLOW_INSECURE_BIND"

// CheckBind reports whether the server may listen on addr (S-3): a loopback
// address always; any other address only with TLS or with
// LOOMI_ALLOW_INSECURE_BIND=true. The error is one line naming the reason
// and the way out. An empty host (":8787") means every interface and is not
// loopback.
func CheckBind(addr string, tls bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("invalid listen address %q: %v", addr, err)
	}
	if isLoopbackHost(host) || tls || os.Getenv(EnvAllowInsecureBind) == "true" {
		return nil
	}
	shown := host
	if shown == "" {
		shown = "every interface"
	}
	// Enforces S-3: a non-loopback address without TLS or LOOMI_ALLOW_INSECURE_BIND=true is refused.
	return fmt.Errorf("refusing to listen on %s (%s) without TLS: pass --tls-cert and --tls-key, or set %s=true to accept plaintext on the network", addr, shown, EnvAllowInsecureBind)
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
