package suites_test

import (
	"context"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/loomi-lmp/lmpkit/suites/conformance"

	_ "github.com/loomi-lmp/lmpkit/suites"
)

// TestConformance runs every suite against an in-process reference server
// with a short timing profile.
func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("the conformance suites take a few seconds")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	target := startServer(ctx, t)
	if err := conformance.Declare(target); err != nil {
		t.Fatal(err)
	}
	sc, rc := ginkgo.GinkgoConfiguration()
	sc.Timeout = 5 * time.Minute
	rc.Succinct = !testing.Verbose()
	_ = types.SpecStatePassed
	ginkgo.RunSpecs(t, "LMP v1 conformance", sc, rc)
}
