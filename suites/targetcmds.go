package suites

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/must"
)

// The target's commands: listing and revoking devices, restarting the server.

// revoke revokes a device through --revoke-cmd or the loopback endpoint
// beside the pairing URL; it skips the spec when there is neither.
func revoke(ctx context.Context, deviceID string) {
	ginkgo.GinkgoHelper()
	err := target(ctx).Revoke(ctx, deviceID)
	if errors.Is(err, conformance.ErrNoRevoke) {
		ginkgo.Skip(err.Error())
	}
	must.Succeed(err, "revoke device %s", deviceID)
}

// requireList skips the running spec when the target cannot list its
// devices (no --list-cmd): a spec calls it before it pairs anything.
func requireList(ctx context.Context) {
	ginkgo.GinkgoHelper()
	if !target(ctx).CanList() {
		ginkgo.Skip(conformance.ErrNoList.Error())
	}
}

// listing is the target's list of devices; a failing list command fails
// the spec.
func listing(ctx context.Context) string {
	ginkgo.GinkgoHelper()
	out, err := target(ctx).ListDevices(ctx)
	if errors.Is(err, conformance.ErrNoList) {
		ginkgo.Skip(err.Error())
	}
	must.Succeed(err, "list the devices")
	return out
}

// isIDByte reports whether b may be part of a device_id: a listing names
// an id only where it is not part of a longer one ("dev_1" in "dev_12").
func isIDByte(b byte) bool {
	return b == '_' || b == '-' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// names reports whether out names id as a whole: an occurrence that no
// id character precedes or follows.
func names(out, id string) bool {
	for from := 0; id != ""; {
		i := strings.Index(out[from:], id)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(id)
		if (start == 0 || !isIDByte(out[start-1])) && (end == len(out) || !isIDByte(out[end])) {
			return true
		}
		from = start + 1
	}
	return false
}

// shownListing is out as a failure message may show it: every secret the
// run has seen replaced by its fingerprint (a careless server may list
// credentials), at most a few lines.
func shownListing(out string) string {
	for _, s := range conformance.Secrets() {
		out = strings.ReplaceAll(out, s.Value, lmp.Redacted+":"+s.Fingerprint()) // as transcripts redact
	}
	const maxLines, maxBytes = 12, 1200
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) > maxLines {
		lines = append(lines[:maxLines], fmt.Sprintf("… %d more lines", len(lines)-maxLines))
	}
	shown := strings.Join(lines, "\n")
	if len(shown) > maxBytes {
		shown = shown[:maxBytes] + "…"
	}
	if strings.TrimSpace(shown) == "" {
		return "the listing was empty"
	}
	return "the listing (secrets redacted):\n" + shown
}

// mustList fails the spec unless the target's listing names every one of
// the devices of conns; when says at what point it was listed.
func mustList(ctx context.Context, when string, conns ...*conformance.Conn) {
	ginkgo.GinkgoHelper()
	out := listing(ctx)
	var missing []string
	for _, c := range conns {
		if !names(out, c.Device.ID) {
			missing = append(missing, fmt.Sprintf("%s (%s)", c.Device.ID, c.Name))
		}
	}
	must.That(len(missing) == 0, "%s, the device listing does not name %s: a user could not find the device_id to revoke (S-5); %s",
		when, strings.Join(missing, " nor "), shownListing(out))
}

// restartTimeout bounds a restart spec: the probes are awaited first (up
// to the longest protocol timer), then the server restarts.
const restartTimeout = 4 * time.Minute

// restarted stops the server as how says and waits until it is back.
func restarted(ctx ginkgo.SpecContext, how conformance.Stop) {
	ginkgo.GinkgoHelper()
	must.Succeed(conformance.Restart(ctx, how), "%s the server", how)
}
