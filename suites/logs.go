package suites

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

var _ = conformance.Section(sectionSecurity, func(specs *conformance.Specs) {
	specs.It("S-1", rules.MUST, "no token or credential the run has seen appears in the server log", func(ctx ginkgo.SpecContext) {
		path := target(ctx).ServerLog
		if path == "" {
			ginkgo.Skip(conformance.SkipNoServerLog)
		}
		markers := temptLogging(ctx)

		// Servers buffer their logs: wait until this spec's last pairing
		// shows up before scanning, or until the deadline.
		waitCtx, cancel := context.WithTimeout(ctx, conformance.Wait())
		start := time.Now()
		logged, err := conformance.WaitLog(waitCtx, path, markers...)
		cancel()
		must.Succeed(err, "read the server log %s", path)

		secrets := conformance.Secrets()
		leaks, lines, err := conformance.ScanLog(path, secrets)
		must.Succeed(err, "read the server log %s", path)
		if logged {
			ginkgo.AddReportEntry("server log", fmt.Sprintf("the log mentioned this spec's last pairing after %v; scanned %d lines of %s for %d secrets",
				time.Since(start).Round(time.Millisecond), lines, path, len(secrets)))
		} else {
			if lines == 0 {
				ginkgo.Skip(fmt.Sprintf("the server log %s stayed empty while devices paired: is it the file the server writes?", path))
			}
			ginkgo.AddReportEntry("server log", fmt.Sprintf("the log never mentioned this spec's last pairing (device ID or fingerprints) within %v; scanned the %d lines it had for %d secrets",
				conformance.Wait(), lines, len(secrets)))
		}
		if len(leaks) > 0 {
			// Named by fingerprint and line number only: the message goes
			// into every report (S-1).
			slices.SortStableFunc(leaks, func(a, b conformance.Leak) int { return a.Lines[0] - b.Lines[0] })
			var names []string
			for i, l := range leaks {
				if i == maxLeaksShown {
					names = append(names, fmt.Sprintf("  … and %d more", len(leaks)-i))
					break
				}
				names = append(names, "  "+l.String())
			}
			ginkgo.Fail(fmt.Sprintf("the server log %s holds %d of the %d tokens and credentials this run has seen (S-1: only %s or an 8-character fingerprint may appear):\n%s",
				path, len(leaks), len(secrets), lmp.Redacted, strings.Join(names, "\n")))
		}
	}, conformance.ReadsServerLog)
})
