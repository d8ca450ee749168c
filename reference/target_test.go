package reference

import (
	"context"
	"net"
	"net/url"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
)

// TestTargetListenSurvivesRestart starts a target on every
// interface (--listen :0) and restarts it: it must listen on every
// interface again, on the same port, so that the LAN specs that run after
// a restart spec still reach it at this host's network addresses.
func TestTargetListenSurvivesRestart(t *testing.T) {
	var lan net.IP
	for _, ip := range client.NetworkAddresses() {
		if ip.To4() != nil {
			lan = ip
			break
		}
	}
	if lan == nil {
		t.Skip("this host has no IPv4 address besides loopback")
	}
	t.Setenv("LOOMI_ALLOW_INSECURE_BIND", "true")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := StartTarget(ctx, ":0", ShortProfile)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	u, err := url.Parse(p.WSURL)
	if err != nil {
		t.Fatal(err)
	}
	at := net.JoinHostPort(lan.String(), u.Port())
	reach := func(when string) {
		t.Helper()
		c, err := net.DialTimeout("tcp", at, 5*time.Second)
		if err != nil {
			t.Fatalf("%s: the target does not answer at %s: %v", when, at, err)
		}
		c.Close()
	}
	reach("after the start")
	if err := p.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	reach("after a restart")
}
