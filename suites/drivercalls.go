package suites

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

// The driver API's other uses: notifications through send(), the
// recorded Hermes calls, and holding Hermes' answers.

// drv is the driver API of the running spec's target.
func drv(ctx context.Context) *driver.Client { return target(ctx).Driver() }

// notify sends a notification through the adapter's send() into chat and
// returns its unique title.
func notify(ctx context.Context, chat string) string {
	ginkgo.GinkgoHelper()
	title := should.NewID("note-")
	res, err := drv(ctx).Send(ctx, driver.SendRequest{ChatID: chat, Content: "text of " + title,
		Metadata: map[string]any{"category": "result", "title": title, "source": "conformance", "requires_attention": true}})
	must.Succeed(err, "driver send of notification %s", title)
	must.That(res.Success, "the adapter's send() of notification %s: want success, got %s", title, sendFailure(res))
	return title
}

// calls returns the recorded Hermes calls named name for which keep is true.
func calls(ctx context.Context, name string, keep func(driver.Call) bool) []driver.Call {
	ginkgo.GinkgoHelper()
	list, err := drv(ctx).Calls(ctx)
	must.Succeed(err, "driver calls")
	var out []driver.Call
	for _, c := range list.Calls {
		if c.Name == name && (keep == nil || keep(c)) {
			out = append(out, c)
		}
	}
	return out
}

// eventuallyCalls waits until at least n matching calls are recorded. When
// they do not come within the usual bound, the failure says how many came
// and what the calls of that name carried instead.
func eventuallyCalls(ctx context.Context, n int, name string, keep func(driver.Call) bool) []driver.Call {
	ginkgo.GinkgoHelper()
	var all, got []driver.Call
	waited, ok := pollDriver(ctx, func() bool {
		all = calls(ctx, name, nil)
		got = slices.DeleteFunc(slices.Clone(all), func(c driver.Call) bool { return keep != nil && !keep(c) })
		return len(got) >= n
	})
	must.That(ok, "waiting for %d matching Hermes call(s) to %s: got %d after %s; %s",
		n, name, len(got), waited.Round(time.Millisecond), describeCalls(all))
	return got
}

// pollDriver asks done every 20 ms until it reports true, for at most the
// usual bound (conformance.Wait) or until ctx ends, and says how long it
// waited and whether done came true: what the driver records (calls into
// Hermes, hooks delivered) comes on Hermes' own time.
func pollDriver(ctx context.Context, done func() bool) (time.Duration, bool) {
	start := time.Now()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !done() {
		if time.Since(start) >= conformance.Wait() {
			return time.Since(start), false
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return time.Since(start), false
		}
	}
	return time.Since(start), true
}

// maxCallsShown bounds the calls a failure lists.
const maxCallsShown = 4

// describeCalls renders recorded calls in one line, the newest last:
// handle_message(chat_id:"c1", text:"hi").
func describeCalls(cs []driver.Call) string {
	if len(cs) == 0 {
		return "no call of that name was recorded"
	}
	var out []string
	if len(cs) > maxCallsShown {
		out = append(out, fmt.Sprintf("%d older", len(cs)-maxCallsShown))
		cs = cs[len(cs)-maxCallsShown:]
	}
	for _, c := range cs {
		out = append(out, describeCall(c))
	}
	return "recorded: " + strings.Join(out, ", ")
}

// describeCall renders one call with its scalar arguments (and a
// handle_message's text), in name order.
func describeCall(c driver.Call) string {
	var args []string
	if text := messageText(c); text != "" {
		args = append(args, fmt.Sprintf("text:%q", text))
	}
	keys := make([]string, 0, len(c.Args))
	for k := range c.Args {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch v := c.Args[k].(type) {
		case string:
			args = append(args, fmt.Sprintf("%s:%q", k, v))
		case nil:
			args = append(args, k+":null")
		case bool, float64:
			args = append(args, fmt.Sprintf("%s:%v", k, v))
		}
	}
	return c.Name + "(" + strings.Join(args, ", ") + ")"
}

// messageText reads a handle_message call's event text.
func messageText(c driver.Call) string {
	ev, _ := c.Args["event"].(map[string]any)
	s, _ := ev["text"].(string)
	return s
}

func withText(text string) func(driver.Call) bool {
	return func(c driver.Call) bool { return messageText(c) == text }
}

func argIs(name, value string) func(driver.Call) bool {
	return func(c driver.Call) bool { return fmt.Sprint(c.Args[name]) == value }
}
