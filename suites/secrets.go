package suites

import (
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

var _ = conformance.Section(sectionSecurity, func(specs *conformance.Specs) {
	// A secret quoted in an error message or a broadcast frame ends up in
	// every client's log and screen: S-1 read for what the server sends,
	// not only for what it writes itself. The credential hello.ok hands to
	// its own device (P-7) is the one exception.
	specs.It("S-1", rules.MUST, "no frame sent to a client carries a token or credential (but the credential in its own hello.ok)", func(ctx ginkgo.SpecContext) {
		conns := temptFrames(ctx)
		for _, c := range conns {
			c.ScanPendingSecrets()
		}
		leaks := conformance.FrameLeaks()
		if len(leaks) == 0 {
			return
		}
		lines := make([]string, 0, len(leaks))
		for i, l := range leaks {
			if i == maxLeaksShown {
				lines = append(lines, fmt.Sprintf("  … and %d more", len(leaks)-i))
				break
			}
			lines = append(lines, "  "+l.String())
		}
		ginkgo.Fail(fmt.Sprintf("%d frames the run received carry a token or credential (named here by fingerprint only):\n%s", len(leaks), strings.Join(lines, "\n")))
	})
})
