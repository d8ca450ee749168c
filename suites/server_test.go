package suites_test

import (
	"context"
	"testing"

	"github.com/loomi-lmp/lmpkit/reference"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
)

// startServer starts a reference server with the short timing profile on a
// loopback port and returns it as a conformance target.
func startServer(ctx context.Context, t *testing.T) *conformance.Target {
	t.Helper()
	// The server logs to a file the S-1 spec scans for secrets.
	inst, err := reference.StartTarget(ctx, "", reference.ShortProfile)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(inst.Close)
	// Like lmp-check's in-process run: the event specs go through the
	// built-in triggers, the Hermes-side specs through the driver.
	return &conformance.Target{WSURL: inst.WSURL, PairURL: inst.PairURL, DriverURL: inst.DriverURL,
		Triggers: conformance.MockTriggers(), PreferTriggers: true,
		Profile: inst.Profile, ProfileSource: conformance.ProfileFromDriver, ServerLog: inst.LogPath}
}
