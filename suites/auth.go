package suites

import (
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/match"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

// authSpecTimeout bounds an auth-timeout spec, which awaits its probe:
// two attempts (a stalled first one is run again) of an auth timeout up to
// a minute, six times the spec's 10 s, each with its slack and a wait. A
// target that declares longer timers raises it (conformance: every timer
// spec's timeout covers the run's longest timer).
const authSpecTimeout = 3 * time.Minute

var _ = conformance.Section(sectionAuth, func(specs *conformance.Specs) {
	specs.It("S-4", rules.MUST, "an unauthenticated connection is closed within the auth timeout (10 s by the spec)", func(ctx ginkgo.SpecContext) {
		awaitProbe(ctx, authTimeoutProbe)
		limit := profile(ctx).AuthTimeout
		must.That(authTimeout.after <= limit+slack(limit), "an unauthenticated connection was closed after %v, the auth timeout is %v", authTimeout.after.Round(time.Millisecond), limit)
	}, conformance.Timer, ginkgo.SpecTimeout(authSpecTimeout))

	specs.It("S-4", rules.INFO, "the auth timeout sends a fatal auth_timeout error and closes with 1008 (docs/protocol.md)", func(ctx ginkgo.SpecContext) {
		awaitProbe(ctx, authTimeoutProbe)
		expectCodes(should.Refusal{Error: authTimeout.err, Close: authTimeout.close}, lmp.CodeAuthTimeout, lmp.ClosePolicyViolation)
	}, conformance.Timer, ginkgo.SpecTimeout(authSpecTimeout))

	specs.It("P-8", rules.MUST, "a wrong credential does not authenticate: a fatal error, then a close", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device")
		c := must.Dial(ctx, "impostor")
		_, err := c.Hello(ctx, lmp.Hello{DeviceID: a.Device.ID, Credential: a.Device.Credential[:len(a.Device.Credential)-4] + "AAAA"})
		must.That(err != nil, "a wrong credential got hello.ok")
		must.Refused(ctx, c, err, "hello with a wrong credential")
	})

	specs.It("P-8", rules.INFO, "a wrong credential gets invalid_credential and close 1008 (docs/protocol.md)", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device")
		c := must.Dial(ctx, "impostor")
		_, err := c.Hello(ctx, lmp.Hello{DeviceID: a.Device.ID, Credential: should.NewID("wrong")})
		must.That(err != nil, "a wrong credential got hello.ok")
		expectCodes(should.AwaitRefusal(ctx, c, err), lmp.CodeInvalidCredential, lmp.ClosePolicyViolation)
	})

	specs.It("S-5", rules.MUST, "a revoked device can no longer connect, and its open connections end", func(ctx ginkgo.SpecContext) {
		first := must.Pair(ctx, "device")
		second := must.Connect(ctx, "device, second connection", first.Device, nil)
		revoke(ctx, first.Device.ID)
		c := must.Dial(ctx, "revoked device")
		_, err := c.Hello(ctx, lmp.Hello{DeviceID: first.Device.ID, Credential: first.Device.Credential})
		must.That(err != nil, "a revoked device got hello.ok")
		must.Refused(ctx, c, err, "hello of a revoked device")
		// Every connection that was open when the device was revoked
		// ends, with any close code.
		must.Closed(ctx, conformance.Wait(), first)
		must.Closed(ctx, conformance.Wait(), second)
	})

	specs.It("S-5", rules.MUST, "a revoked device stays revoked after a clean restart", func(ctx ginkgo.SpecContext) {
		conformance.RequireStop(ctx, conformance.Graceful)
		a := must.Pair(ctx, "device")
		revoke(ctx, a.Device.ID)
		restarted(ctx, conformance.Graceful)
		c := must.Dial(ctx, "revoked device after the restart")
		_, err := c.Hello(ctx, lmp.Hello{DeviceID: a.Device.ID, Credential: a.Device.Credential})
		must.That(err != nil, "a device revoked before a clean restart got hello.ok after it")
		must.Refused(ctx, c, err, "hello of a device revoked before the restart")
	}, conformance.Restarts, ginkgo.SpecTimeout(restartTimeout))

	specs.It("P-8", rules.MUST, "a device_id with another device's credential does not authenticate: a fatal error, then a close", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device")
		b := must.Pair(ctx, "other device")
		c := must.Dial(ctx, "device with the other's credential")
		_, err := c.Hello(ctx, lmp.Hello{DeviceID: a.Device.ID, Credential: b.Device.Credential})
		must.That(err != nil, "device %s authenticated with the credential of device %s", a.Device.ID, b.Device.ID)
		must.Refused(ctx, c, err, "hello with another device's credential")
	})

	specs.It("S-5", rules.INFO, "a revoked device gets device_revoked and close 1008, on its open connection too (docs/protocol.md)", func(ctx ginkgo.SpecContext) {
		a, c, err := revokedHello(ctx)
		var soft must.Soft
		r := should.AwaitRefusal(ctx, c, err)
		soft.Equal("error code of the refused hello", r.Code(), lmp.CodeDeviceRevoked)
		soft.Equal("close code of the refused hello", r.CloseCode(), lmp.ClosePolicyViolation)
		open := should.AwaitRefusal(ctx, a, nil)
		soft.Equal("close code of the connection open at the revocation", open.CloseCode(), lmp.ClosePolicyViolation)
		soft.Done()
	})

	specs.It("F-2", rules.MUST, "the first frame must be hello: a request before hello is not served", func(ctx ginkgo.SpecContext) {
		c := must.Dial(ctx, "device")
		must.Send(ctx, c, lmp.TaskList{RequestID: "before-hello"})
		// A refusal (an error, or the connection's end) comes first; a
		// server that serves the request answers it.
		f, err := should.Expect(ctx, c, match.Any(match.Type(lmp.TypeError, lmp.TypeTaskListResult), match.Request("before-hello")))
		must.That(err != nil || f.Type == lmp.TypeError, "a task.list before hello was served: %s", c.Describe(f))
	})

	specs.It("F-2", rules.SHOULD, "a first frame that is not hello is refused at once: a fatal error, then a close (note 10)", func(ctx ginkgo.SpecContext) {
		c := must.Dial(ctx, "device")
		must.Send(ctx, c, lmp.Ping{})
		must.Refused(ctx, c, nil, "ping before hello")
	})

	specs.It("F-2", rules.INFO, "a first frame that is not hello gets hello_required and close 1002 (docs/protocol.md)", func(ctx ginkgo.SpecContext) {
		c := must.Dial(ctx, "device")
		must.Send(ctx, c, lmp.Ping{})
		expectCodes(should.AwaitRefusal(ctx, c, nil), lmp.CodeHelloRequired, lmp.CloseProtocolError)
	})

	specs.It("F-2", rules.SHOULD, "a second hello gets a non-fatal error and the connection stays authenticated (note 16)", func(ctx ginkgo.SpecContext) {
		a := secondHello(ctx)
		f := must.Expect(ctx, a, match.Type(lmp.TypeError, lmp.TypeHelloOK))
		must.That(f.Type == lmp.TypeError, "a second hello was answered with %s", a.Describe(f))
		var soft must.Soft
		soft.That(!must.Decode[lmp.Error](f).Fatal, "the second hello's error is fatal: %s", a.Describe(f))
		must.Send(ctx, a, lmp.Ping{})
		_, err := should.Expect(ctx, a, match.Type(lmp.TypePong))
		soft.That(err == nil, "after the second hello, a ping: %v", err)
		soft.Done()
	})

	specs.It("F-2", rules.INFO, "a second hello gets error already_authenticated (docs/protocol.md)", func(ctx ginkgo.SpecContext) {
		a := secondHello(ctx)
		f := must.Expect(ctx, a, match.Type(lmp.TypeError, lmp.TypeHelloOK))
		must.That(f.Type == lmp.TypeError, "a second hello was answered with %s", a.Describe(f))
		must.Equal("error code", must.Decode[lmp.Error](f).Code, lmp.CodeAlreadyAuthenticated)
	})
})

var _ = conformance.Section(sectionAuth, func(specs *conformance.Specs) {
	// A phone often reconnects before its old connection has ended; the
	// old one's end must leave the new one among the device's open
	// connections, which a revocation ends. Whether a server that loses the
	// new one with the old one has done so by the revocation depends on
	// when it handles the old one's end, which the wire does not show: the
	// spec tries several devices, so that such a server shows it in one of
	// them. A correct server passes every round.
	specs.It("S-5", rules.MUST, "a revoked device's connection ends, also one opened before its previous connection ended", func(ctx ginkgo.SpecContext) {
		const rounds = 8
		for i := range rounds {
			old := must.Pair(ctx, fmt.Sprintf("device %d", i+1))
			again := must.Connect(ctx, fmt.Sprintf("device %d again", i+1), old.Device, nil)
			must.Succeed(old.Close(), "close device %d's old connection", i+1)
			must.Send(ctx, again, lmp.Ping{})
			must.Expect(ctx, again, match.Type(lmp.TypePong))
			revoke(ctx, old.Device.ID)
			must.Closed(ctx, conformance.Wait(), again)
		}
	})

	specs.It("S-5", rules.MUST, "a device revoked while offline can no longer connect", func(ctx ginkgo.SpecContext) {
		online := must.Pair(ctx, "device online at its revocation")
		offline := must.Pair(ctx, "device offline at its revocation")
		must.Succeed(offline.Close())
		// The first revocation shows that the target revokes at all (or
		// skips the spec); the offline device's must then succeed too.
		revoke(ctx, online.Device.ID)
		must.Succeed(target(ctx).Revoke(ctx, offline.Device.ID), "revoke the offline device %s", offline.Device.ID)
		c := must.Dial(ctx, "device revoked while offline")
		_, err := c.Hello(ctx, lmp.Hello{DeviceID: offline.Device.ID, Credential: offline.Device.Credential})
		must.That(err != nil, "a device revoked while offline got hello.ok")
		must.Refused(ctx, c, err, "hello of a device revoked while offline")
	})
})
