package suites

import (
	"strings"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

// The listing half of S-5 ("devices can be listed and revoked", lmp-v1.md
// §3: `hermes loomi devices`). The spec prescribes no format: revoke takes
// a device_id, so a listing must name each paired device by it, and that
// is all these specs look for. A server that prints JSON, a table or
// anything else naming the ids passes.

var _ = conformance.Section(sectionDevices, func(specs *conformance.Specs) {
	specs.It("S-5", rules.MUST, "a freshly paired device is listed by its device_id", func(ctx ginkgo.SpecContext) {
		requireList(ctx)
		a := must.Pair(ctx, "device")
		mustList(ctx, "right after the pairing", a)
	})

	specs.It("S-5", rules.MUST, "two devices paired one after the other are both listed", func(ctx ginkgo.SpecContext) {
		requireList(ctx)
		// Both with the same device_info, as two phones of one model are.
		a := must.Pair(ctx, "first device")
		b := must.Pair(ctx, "second device")
		mustList(ctx, "with two devices paired", a, b)
	})

	specs.It("S-5", rules.MUST, "a paired device that has gone offline is still listed", func(ctx ginkgo.SpecContext) {
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
		specs.It("S-5", rules.MUST, "a device paired before "+what+" is still listed after it", func(ctx ginkgo.SpecContext) {
			conformance.RequireStop(ctx, how)
			requireList(ctx)
			a := must.Pair(ctx, "device paired before the "+string(how))
			restarted(ctx, how)
			mustList(ctx, "after "+what, a)
		}, conformance.Restarts, ginkgo.SpecTimeout(restartTimeout))
	}

	specs.It("S-5", rules.MUST, "revoking a device leaves the other devices listed", func(ctx ginkgo.SpecContext) {
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

	specs.It("S-5", rules.INFO, "a revoked device stays listed (lmp-server's choice: the spec does not say whether it goes)", func(ctx ginkgo.SpecContext) {
		requireList(ctx)
		a := must.Pair(ctx, "device")
		revoke(ctx, a.Device.ID)
		out := listing(ctx)
		must.That(names(out, a.Device.ID), "after its revocation, the device listing no longer names %s (%s): lmp-server keeps a revoked device listed as revoked; %s",
			a.Device.ID, a.Name, shownListing(out))
	})

	// INFO: S-1 binds only the logs; lmp-server's listing prints neither.
	specs.It("S-5", rules.INFO, "the device listing prints no token or credential", func(ctx ginkgo.SpecContext) {
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
