package suites

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/suites/must"
)

// Hermes calls some hooks from its own goroutines, on its own time: an
// approval's post_approval_response comes from the approval's waiter once
// resolve_gateway_approval has released it, after that call has returned
// (hermes.md, tools/approval.py). A spec whose next step must come after
// the adapter has processed such a hook waits for it in the driver's hook
// log (GET /hooks lists a hook once the adapter's callback has returned),
// never for a fixed time.

// eventuallyHook waits until the driver lists a delivered hook name that
// keep accepts, and returns it. When none comes within the usual bound,
// the failure names the hooks of that name delivered instead.
func eventuallyHook(ctx context.Context, name string, keep func(driver.Hook) bool) driver.Hook {
	ginkgo.GinkgoHelper()
	var found driver.Hook
	var named []driver.Call
	waited, ok := pollDriver(ctx, func() bool {
		list, err := drv(ctx).Hooks(ctx)
		var ae *driver.APIError
		if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
			// A driver written before the hook log: the spec cannot know
			// when the hook arrived, so it cannot judge the server.
			ginkgo.Skip("the driver has no hook log (GET " + driver.RouteHooks + " answers 404): the spec waits for a hook Hermes delivers on its own time")
		}
		must.Succeed(err, "driver GET %s (the hooks Hermes delivered to the adapter)", driver.RouteHooks)
		named = named[:0]
		for _, h := range list.Hooks {
			if h.Name != name {
				continue
			}
			if keep(h) {
				found = h
				return true
			}
			named = append(named, driver.Call{Name: h.Name, Args: h.Kwargs})
		}
		return false
	})
	must.That(ok, "waiting for Hermes to deliver %s to the adapter: none matched after %s; %s",
		name, waited.Round(time.Millisecond), describeCalls(named))
	return found
}
