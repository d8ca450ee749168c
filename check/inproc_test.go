package check

import (
	"context"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
)

// TestInProcessListenSurvivesRestart starts the in-process server on every
// interface (--listen :0) and restarts it: it must listen on every
// interface again, on the same port, so that the LAN specs that run after
// a restart spec still reach it at this host's network addresses.
func TestInProcessListenSurvivesRestart(t *testing.T) {
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
	p, _, err := startInProcess(ctx, Config{Listen: ":0"})
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
			t.Fatalf("%s: the in-process server does not answer at %s: %v", when, at, err)
		}
		c.Close()
	}
	reach("after the start")
	if err := p.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	reach("after a restart")
}

// TestInProcessListenIsChecked: a network address without the opt-in is
// refused as lmp-server refuses it (S-3), and a malformed one names itself.
func TestInProcessListenIsChecked(t *testing.T) {
	t.Setenv("LOOMI_ALLOW_INSECURE_BIND", "")
	ctx := context.Background()
	for addr, want := range map[string]string{
		":0":          "LOOMI_ALLOW_INSECURE_BIND=true",
		"no-port":     `--listen "no-port"`,
		"0.0.0.0:0":   "without TLS",
		"127.0.0.1:x": "listen on 127.0.0.1:x",
	} {
		p, _, err := startInProcess(ctx, Config{Listen: addr})
		if err == nil {
			p.Close()
			t.Errorf("--listen %s: started, want a refusal naming %q", addr, want)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("--listen %s: %v, want it to name %q", addr, err, want)
		}
	}
}
