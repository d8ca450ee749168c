package suites

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

// authTimeoutResult is what the auth-timeout probe saw.
type authTimeoutResult struct {
	after time.Duration
	close *client.CloseError
	err   *lmp.Error
}

var authTimeout authTimeoutResult

// authTimeoutProbe opens a connection and never authenticates (S-4).
var authTimeoutProbe = conformance.NewProbe("auth timeout", func(ctx context.Context, p *conformance.Probe) error {
	start := time.Now()
	c, err := p.Dial(ctx, nil)
	if err != nil {
		return err
	}
	limit := conformance.Current().Profile.AuthTimeout
	waitCtx, cancel := context.WithTimeout(ctx, limit+slack(limit)+conformance.Wait())
	defer cancel()
	ce, err := c.WaitClosed(waitCtx)
	if err != nil {
		return fmt.Errorf("an unauthenticated connection was still open after %v (S-4: closed within %v)", time.Since(start).Round(time.Millisecond), limit)
	}
	authTimeout.after, authTimeout.close = time.Since(start), ce
	for _, f := range c.Pending() {
		if f.Type == lmp.TypeError {
			if e, err := lmp.DecodePayload[lmp.Error](f.Type, f.Payload); err == nil {
				authTimeout.err = &e
			}
		}
	}
	return nil
})

var _ = conformance.Section("§3 Authentication", "auth", func() {
	conformance.It("S-4", rules.MUST, "an unauthenticated connection is closed within the auth timeout (10 s by the spec)", func(ctx ginkgo.SpecContext) {
		awaitProbe(ctx, authTimeoutProbe)
		limit := profile().AuthTimeout
		Expect(authTimeout.after).To(BeNumerically("<=", limit+slack(limit)), "closed after")
	}, conformance.Timer, ginkgo.SpecTimeout(90*time.Second))

	conformance.It("S-4", rules.SHOULD, "the auth timeout sends a fatal auth_timeout error and closes with 1008 (note 10)", func(ctx ginkgo.SpecContext) {
		awaitProbe(ctx, authTimeoutProbe)
		Expect(authTimeout.err).NotTo(gomegaBeNil(), "no error frame before the close")
		Expect(authTimeout.err.Code).To(Equal(lmp.CodeAuthTimeout))
		Expect(authTimeout.err.Fatal).To(BeTrue())
		Expect(authTimeout.close.Code).To(Equal(lmp.ClosePolicyViolation))
	}, conformance.Timer, ginkgo.SpecTimeout(90*time.Second))

	conformance.It("P-8", rules.MUST, "a wrong credential does not authenticate", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device")
		c := must.Dial(ctx, "impostor")
		_, err := c.Hello(ctx, lmp.Hello{DeviceID: a.Device.ID, Credential: a.Device.Credential[:len(a.Device.Credential)-4] + "AAAA"})
		Expect(err).To(gomegaHaveOccurred(), "a wrong credential got hello.ok")
	})

	conformance.It("P-8", rules.SHOULD, "a wrong credential gets a fatal invalid_credential and close 1008", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device")
		c := must.Dial(ctx, "impostor")
		_, err := c.Hello(ctx, lmp.Hello{DeviceID: a.Device.ID, Credential: should.NewID("wrong")})
		se, ok := should.ServerError(err)
		Expect(ok).To(BeTrue(), "hello with a wrong credential: %v", err)
		Expect(se.Code).To(Equal(lmp.CodeInvalidCredential))
		Expect(se.Fatal).To(BeTrue())
		Expect(must.Closed(ctx, conformance.Wait(), c).Code).To(Equal(lmp.ClosePolicyViolation))
	})

	conformance.It("S-5", rules.MUST, "a revoked device can no longer connect", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device")
		revoke(ctx, a.Device.ID)
		c := must.Dial(ctx, "revoked device")
		_, err := c.Hello(ctx, lmp.Hello{DeviceID: a.Device.ID, Credential: a.Device.Credential})
		Expect(err).To(gomegaHaveOccurred(), "a revoked device got hello.ok")
		if se, ok := should.ServerError(err); ok {
			Expect(se.Code).To(gomegaBeElementOf(lmp.CodeDeviceRevoked, lmp.CodeInvalidCredential))
		}
		// The connection that was open when the device was revoked ends.
		Expect(must.Closed(ctx, conformance.Wait(), a).Code).To(Equal(lmp.ClosePolicyViolation))
	})

	conformance.It("F-2", rules.MUST, "the first frame must be hello: a request before hello is not served", func(ctx ginkgo.SpecContext) {
		c := must.Dial(ctx, "device")
		must.Send(ctx, c, lmp.TaskList{RequestID: "before-hello"})
		f, err := should.Expect(ctx, c, match.Any(match.Type(lmp.TypeTaskListResult), match.Type(lmp.TypeError)))
		if err == nil {
			Expect(f.Type).To(Equal(lmp.TypeError), "a request before hello was served")
		}
	})

	conformance.It("F-2", rules.SHOULD, "a first frame that is not hello gets a fatal hello_required and close 1002 (note 10)", func(ctx ginkgo.SpecContext) {
		c := must.Dial(ctx, "device")
		must.Send(ctx, c, lmp.Ping{})
		f := must.Expect(ctx, c, match.Type(lmp.TypeError))
		e := must.Decode[lmp.Error](f)
		Expect(e.Code).To(Equal(lmp.CodeHelloRequired))
		Expect(e.Fatal).To(BeTrue())
		Expect(must.Closed(ctx, conformance.Wait(), c).Code).To(Equal(lmp.CloseProtocolError))
	})

	conformance.It("F-2", rules.SHOULD, "a second hello gets a non-fatal already_authenticated and the connection stays (note 16)", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device")
		must.Send(ctx, a, lmp.Hello{ProtocolVersion: lmp.Version, DeviceID: a.Device.ID, Credential: a.Device.Credential, DeviceInfo: client.DefaultDeviceInfo})
		f := must.Expect(ctx, a, match.Type(lmp.TypeError, lmp.TypeHelloOK))
		Expect(f.Type).To(Equal(lmp.TypeError), "a second hello was answered with hello.ok")
		e := must.Decode[lmp.Error](f)
		Expect(e.Code).To(Equal(lmp.CodeAlreadyAuthenticated))
		Expect(e.Fatal).To(BeFalse())
		must.Send(ctx, a, lmp.Ping{})
		must.Expect(ctx, a, match.Type(lmp.TypePong))
	})
})

// revoke revokes a device through --revoke-cmd or the loopback endpoint
// beside the pairing URL; it skips the spec when there is neither.
func revoke(ctx context.Context, deviceID string) {
	err := target().Revoke(ctx, deviceID)
	if errors.Is(err, conformance.ErrNoRevoke) {
		ginkgo.Skip(err.Error())
	}
	must.Succeed(err, "revoke device %s", deviceID)
}
