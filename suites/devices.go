package suites

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

// The listing half of S-5 ("devices can be listed and revoked", lmp-v1.md
// §3: `hermes loomi devices`). The spec prescribes no format: revoke takes
// a device_id, so a listing must name each paired device by it, and that
// is all these specs look for. A server that prints JSON, a table or
// anything else naming the ids passes.

// requireList skips the running spec when the target cannot list its
// devices (no --list-cmd): a spec calls it before it pairs anything.
func requireList(ctx context.Context) {
	if !target(ctx).CanList() {
		ginkgo.Skip(conformance.ErrNoList.Error())
	}
}

// listing is the target's list of devices; a failing list command fails
// the spec.
func listing(ctx context.Context) string {
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

var _ = conformance.Section(sectionDevices, func() {
	conformance.It("S-5", rules.MUST, "a freshly paired device is listed by its device_id", func(ctx ginkgo.SpecContext) {
		requireList(ctx)
		a := must.Pair(ctx, "device")
		mustList(ctx, "right after the pairing", a)
	})

	conformance.It("S-5", rules.MUST, "two devices paired one after the other are both listed", func(ctx ginkgo.SpecContext) {
		requireList(ctx)
		// Both with the same device_info, as two phones of one model are.
		a := must.Pair(ctx, "first device")
		b := must.Pair(ctx, "second device")
		mustList(ctx, "with two devices paired", a, b)
	})

	conformance.It("S-5", rules.MUST, "a paired device that has gone offline is still listed", func(ctx ginkgo.SpecContext) {
		requireList(ctx)
		// A lost phone is offline: revoking it is what the listing is for.
		gone := must.Pair(ctx, "device gone offline")
		must.Succeed(gone.Close(), "close %s", gone.Name)
		// Pairing another device is a whole round trip after the close
		// handshake: by then the server has seen the first one go.
		online := must.Pair(ctx, "device online")
		mustList(ctx, "after the first device closed its connection", gone, online)
	})

	for _, how := range []conformance.Stop{conformance.Graceful, conformance.Kill} {
		what := map[conformance.Stop]string{conformance.Graceful: "a clean restart", conformance.Kill: "a kill -9"}[how]
		conformance.It("S-5", rules.MUST, "a device paired before "+what+" is still listed after it", func(ctx ginkgo.SpecContext) {
			conformance.RequireStop(ctx, how)
			requireList(ctx)
			a := must.Pair(ctx, "device paired before the "+string(how))
			restarted(ctx, how)
			mustList(ctx, "after "+what, a)
		}, conformance.Restarts, ginkgo.SpecTimeout(restartTimeout))
	}

	conformance.It("S-5", rules.MUST, "revoking a device leaves the other devices listed", func(ctx ginkgo.SpecContext) {
		requireList(ctx)
		// The revoked device is the older one: a listing that stops at it
		// loses the newer one.
		revoked := must.Pair(ctx, "device to revoke")
		kept := must.Pair(ctx, "device kept")
		revoke(ctx, revoked.Device.ID)
		// Whether the revoked device stays listed is the server's choice
		// (the spec does not say; see the INFO spec below).
		mustList(ctx, "after the other device's revocation", kept)
	})

	conformance.It("S-5", rules.INFO, "a revoked device stays listed (lmp-server's choice: the spec does not say whether it goes)", func(ctx ginkgo.SpecContext) {
		requireList(ctx)
		a := must.Pair(ctx, "device")
		revoke(ctx, a.Device.ID)
		out := listing(ctx)
		must.That(names(out, a.Device.ID), "after its revocation, the device listing no longer names %s (%s): lmp-server keeps a revoked device listed as revoked; %s",
			a.Device.ID, a.Name, shownListing(out))
	})

	// INFO: S-1 binds only the logs; lmp-server's listing prints neither.
	conformance.It("S-5", rules.INFO, "the device listing prints no token or credential", func(ctx ginkgo.SpecContext) {
		requireList(ctx)
		a := must.Pair(ctx, "device")
		out := listing(ctx)
		var leaked []string
		for _, s := range conformance.Secrets() {
			if strings.Contains(out, s.Value) {
				leaked = append(leaked, s.String())
			}
		}
		must.That(len(leaked) == 0, "the device listing (with %s paired) prints %s; want no token or credential (lmp-server prints neither)", a.Device.ID, strings.Join(leaked, ", "))
	})
})
