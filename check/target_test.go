package check

import (
	"context"
	"io"
	"strings"
	"testing"
)

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
		p, err := validate(Config{Listen: addr, ReportConfig: ReportConfig{Stdout: io.Discard}})
		var release func()
		if err == nil {
			_, release, err = acquire(ctx, p)
		}
		if err == nil {
			release()
			t.Errorf("--listen %s: started, want a refusal naming %q", addr, want)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("--listen %s: %v, want it to name %q", addr, err, want)
		}
	}
}
