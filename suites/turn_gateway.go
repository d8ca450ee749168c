package suites

import (
	"errors"
	"net/http"
	"strings"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

// gatewayTurnClass is a class of turns Hermes shapes or starts itself
// (hermes.md, "Turns"), as a built-in scenario of the driver plays it
// (docs/scenarios.md): turns is how many turns of the chat it runs, forks
// not counted.
type gatewayTurnClass struct {
	title    string
	scenario string
	args     []string
	turns    int
}

var gatewayTurnClasses = []gatewayTurnClass{
	{"a turn whose message Hermes put a reply quote in front of is the chat's run (note 22)", "quote", nil, 1},
	{"a turn whose message is an image's description and caption is the chat's run (note 22)", "image", nil, 1},
	{"a turn whose message is a voice note's transcript is the chat's run (note 22)", "voice", nil, 1},
	{"the turn the gateway starts when a background process ends is the chat's run (note 22)", "process", []string{"0s"}, 2},
	{"a queued follow-up the gateway runs, merged, is the chat's run (note 22)", "followup", nil, 2},
	{"a turn cut by a gateway restart and the turn resuming it both end as the chat's runs (note 22)", "resume", nil, 2},
	{"a turn a /btw fork runs beside is the chat's run, and it ends (note 22)", "btw", nil, 1},
	{"a turn the background review follows is the chat's run, and it ends (note 22)", "review", nil, 1},
}

var _ = conformance.Section(sectionTurns, func(specs *conformance.Specs) {
	// Each class of turns that Hermes shapes or starts itself, played by
	// the driver's scenario of that name in a chat of the device, in a
	// session the server has not seen: the device's /new rolls the chat
	// over to a new session, and the turns come with no message of the
	// adapter's that names them. Only the session store's row, whose origin
	// names the chat, says they are the chat's. Each turn must be a run of
	// the chat that ends; a fork beside it may or may not be shown (the
	// server's choice), so only the turns are counted. Note 22's preferred
	// answer, so SHOULD.
	for _, class := range gatewayTurnClasses {
		specs.It("H-1", rules.SHOULD, class.title, func(ctx ginkgo.SpecContext) {
			c := must.Pair(ctx, "device")
			own := newTurn(ctx, c)
			must.Request(ctx, c, lmp.SessionSend{Text: "/new", TaskID: &own.task})
			res, err := drv(ctx).Play(ctx, driver.PlayRequest{Scenario: class.scenario, Args: class.args, TaskID: own.task, Wait: true})
			var ae *driver.APIError
			if errors.As(err, &ae) && ae.Status == http.StatusBadRequest && strings.Contains(ae.Message, "unknown scenario") {
				ginkgo.Skip("the driver has no scenario " + class.scenario + " (docs/scenarios.md): " + ae.Message)
			}
			must.Succeed(err, "driver POST %s %s in the device's chat %s", driver.RoutePlay, class.scenario, own.task)
			must.That(res.Error == "", "the driver could not play %s to its end: %s", class.scenario, res.Error)
			for i := 1; i <= class.turns; i++ {
				st := must.Decode[lmp.RunStarted](must.Expect(ctx, c, match.Task(own.task).And(match.Type(lmp.TypeRunStarted)).
					And(match.Field("session_id", res.SessionID))))
				must.Expect(ctx, c, match.Run(st.RunID).And(match.Terminal()))
			}
		}, conformance.NeedsDriver)
	}

	// /retry: the gateway runs the chat's last message again as a new
	// turn. Its pre_llm_call names that message, not the "/retry" the
	// adapter handed on, so only the session tells whose turn it is. Hermes
	// and the mock both understand the command; no driver is needed.
	specs.It("H-1", rules.SHOULD, "/retry in a chat runs its last message again as a run of that chat that ends (note 22)", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "device")
		own := newTurn(ctx, c)
		must.Request(ctx, c, lmp.SessionSend{Text: "/retry", TaskID: &own.task})
		st := must.Decode[lmp.RunStarted](must.Expect(ctx, c, match.Task(own.task).And(match.Type(lmp.TypeRunStarted))))
		must.Expect(ctx, c, match.Run(st.RunID).And(match.Terminal()))
	})
})
