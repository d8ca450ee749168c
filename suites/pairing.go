package suites

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"sync"
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

var _ = conformance.Section(sectionPairing, func(specs *conformance.Specs) {
	specs.It("P-1,P-2", rules.MUST, "the pairing endpoint mints a token; the pairing JSON is {v:1,url,token,name,fp}", func(ctx ginkgo.SpecContext) {
		t := target(ctx)
		pr, err := t.MintToken(ctx, 0)
		must.Succeed(err)
		must.Equal("pairing JSON v", pr.V, 1)
		must.That(pr.Token != "", "the pairing JSON has an empty token")
		must.That(pr.Name != "", "the pairing JSON has an empty name: P-2 puts the host's name there")
		must.That(wsURL.MatchString(pr.URL), "pairing JSON url %q is not a ws:// or wss:// URL", pr.URL)
		if t.PairURL != "" {
			// The raw JSON must hold every QR field, fp and name included
			// even when empty.
			raw := postPair(ctx, nil)
			for _, k := range []string{"v", "url", "token", "name", "fp"} {
				_, ok := raw[k]
				must.That(ok, "the pairing JSON lacks %q (P-2)", k)
			}
		}
	})

	specs.It("P-1", rules.SHOULD, "the pairing endpoint refuses requests carrying forwarding headers (note 13)", func(ctx ginkgo.SpecContext) {
		if target(ctx).PairURL == "" {
			ginkgo.Skip("needs --pair-url")
		}
		var soft must.Soft
		for _, h := range []string{"X-Forwarded-For", "Forwarded", "X-Real-IP"} {
			status := pairStatus(ctx, http.Header{h: {"203.0.113.7"}})
			soft.That(status >= 400 && status < 500, "POST %s with %s: want a 4xx refusal, got HTTP %d", lmp.PathPairNew, h, status)
		}
		soft.Done()
	})

	specs.It("P-7", rules.MUST, "hello.ok of a new device carries device_id and a credential of 32 URL-safe random bytes", func(ctx ginkgo.SpecContext) {
		// Eight credentials: 43 random characters of standard base64 avoid
		// '+' and '/' with a chance of (62/64)^43, about 1 in 4 for one
		// credential, but about 1 in 50,000 for eight, so a server that is
		// not URL-safe is caught every run, not by luck.
		ids, creds := map[string]bool{}, map[string]bool{}
		var raws [][]byte
		for i := range 8 {
			c := must.Pair(ctx, fmt.Sprintf("device %d", i+1))
			raw, err := base64.RawURLEncoding.DecodeString(c.Device.Credential)
			if err != nil {
				raw, err = base64.URLEncoding.DecodeString(c.Device.Credential)
			}
			must.Succeed(err, "%s: credential is not URL-safe base64", c.Name)
			must.Equal(c.Name+": credential length in bytes", len(raw), 32)
			must.That(!ids[c.Device.ID], "two devices got the same device_id %q", c.Device.ID)
			must.That(!creds[c.Device.Credential], "two devices got the same credential")
			ids[c.Device.ID], creds[c.Device.Credential] = true, true
			raws = append(raws, raw)
		}
		// Random in every byte: one byte position holding the same value
		// in eight random credentials has a chance of 2^-56, about 2^-51
		// for any of the 32, so this fails only a server whose bytes are
		// not all random (a zero tail, a fixed prefix).
		for pos := range 32 {
			same := true
			for _, raw := range raws[1:] {
				same = same && raw[pos] == raws[0][pos]
			}
			must.That(!same, "byte %d of all 8 credentials is 0x%02x: a credential is 32 random bytes", pos, raws[0][pos])
		}
	})

	specs.It("P-4", rules.MUST, "a token is single-use: a second hello with it is refused with a fatal error and a close", func(ctx ginkgo.SpecContext) {
		tok := must.Token(ctx)
		_, err := should.PairWith(ctx, "first", tok)
		must.Succeed(err)
		second, err := should.PairWith(ctx, "second", tok)
		must.That(err != nil, "the token paired a second device")
		must.Refused(ctx, second, err, "hello with a used token")
	})

	specs.It("P-4", rules.MUST, "of N simultaneous hellos with one token exactly one pairs", func(ctx ginkgo.SpecContext) {
		// Every connection is open before any hello leaves, and the hellos
		// leave together: a server that voids the token some time after
		// checking it (once the device is stored, say) pairs more than one.
		const n = 16
		tok := must.Token(ctx)
		conns := make([]*conformance.Conn, n)
		for i := range conns {
			conns[i] = must.Dial(ctx, fmt.Sprintf("racer %d", i+1))
		}
		start := make(chan struct{})
		var wg sync.WaitGroup
		var mu sync.Mutex
		paired, refused := 0, 0
		for _, c := range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer ginkgo.GinkgoRecover()
				<-start
				_, err := c.Hello(ctx, lmp.Hello{Token: tok})
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					paired++
				} else {
					refused++
				}
			}()
		}
		close(start)
		wg.Wait()
		must.That(paired == 1, "one token paired %d of %d simultaneous devices (%d refused), want exactly 1", paired, n, refused)
	})

	specs.It("P-4,P-5", rules.INFO, "an unknown token gets invalid_token and close 1008 (docs/protocol.md)", func(ctx ginkgo.SpecContext) {
		c := must.Dial(ctx, "device")
		_, err := c.Hello(ctx, lmp.Hello{Token: should.NewID("not-a-token-")})
		must.That(err != nil, "an unknown token got hello.ok")
		expectCodes(should.AwaitRefusal(ctx, c, err), lmp.CodeInvalidToken, lmp.ClosePolicyViolation)
	})

	specs.It("P-3", rules.MUST, "an unknown token does not authenticate the connection: a fatal error, then a close", func(ctx ginkgo.SpecContext) {
		c := must.Dial(ctx, "device")
		_, err := c.Hello(ctx, lmp.Hello{Token: should.NewID("not-a-token-")})
		must.That(err != nil, "an unknown token got hello.ok")
		must.Refused(ctx, c, err, "hello with an unknown token")
	})

	specs.It("P-6", rules.SHOULD, "a token sent with a device identity is refused and not consumed (note 9)", func(ctx ginkgo.SpecContext) {
		old := must.Pair(ctx, "paired device")
		tok := must.Token(ctx)
		c := must.Dial(ctx, "token with identity")
		_, err := c.Hello(ctx, lmp.Hello{Token: tok, DeviceID: old.Device.ID, Credential: old.Device.Credential})
		var soft must.Soft
		if soft.That(err != nil, "a hello with a token and an identity got hello.ok") {
			r := should.AwaitRefusal(ctx, c, err)
			soft.That(r.Fatal(), "hello with a token and an identity: want a fatal error followed by a close, got %s", r)
		}
		// The token is still good for a new device.
		_, err = should.PairWith(ctx, "new device", tok)
		soft.That(err == nil, "the refused hello consumed the token: pairing with it afterwards: %v", err)
		soft.Done()
	})

	specs.It("P-6", rules.INFO, "a token sent with a device identity gets token_with_identity and close 1008 (docs/protocol.md)", func(ctx ginkgo.SpecContext) {
		old := must.Pair(ctx, "paired device")
		c := must.Dial(ctx, "token with identity")
		_, err := c.Hello(ctx, lmp.Hello{Token: must.Token(ctx), DeviceID: old.Device.ID, Credential: old.Device.Credential})
		must.That(err != nil, "a hello with a token and an identity got hello.ok")
		expectCodes(should.AwaitRefusal(ctx, c, err), lmp.CodeTokenWithIdentity, lmp.ClosePolicyViolation)
	})

	specs.It("P-5", rules.MUST, "a token expires after its TTL", func(ctx ginkgo.SpecContext) {
		awaitProbe(ctx, pairTTLProbe)
	}, conformance.Timer, ginkgo.SpecTimeout(90*time.Second))

	specs.It("P-5", rules.MUST, "a token's default TTL is the server's profile TTL (300 s by the spec)", func(ctx ginkgo.SpecContext) {
		before := time.Now()
		pr, err := target(ctx).MintToken(ctx, 0)
		must.Succeed(err)
		if pr.ExpiresAt == 0 {
			ginkgo.Skip("the pairing answer carries no expires_at")
		}
		got := lmp.TimeOf(pr.ExpiresAt).Sub(before)
		want := profile(ctx).PairTTL
		d := got - want
		must.That(d.Abs() <= slack(want)+5*time.Second, "a token minted without a TTL expires after %v, want %v", got.Round(time.Second), want)
	})

	specs.It("P-5", rules.MUST, "a token stays valid until it is used or expires: minting other tokens does not void it", func(ctx ginkgo.SpecContext) {
		first := must.Token(ctx)
		second := must.Token(ctx)
		third := must.Token(ctx)
		for _, tok := range []struct{ name, token string }{{"second", second}, {"first", first}, {"third", third}} {
			_, err := should.PairWith(ctx, "device with the "+tok.name+" token", tok.token)
			must.Succeed(err, "pair with the %s of three tokens minted in a row, well within their TTL", tok.name)
		}
	})

	specs.It("P-2", rules.MUST, "a pairing JSON whose url is ws:// has an empty fp: without TLS there is no certificate", func(ctx ginkgo.SpecContext) {
		pr, err := target(ctx).MintToken(ctx, 0)
		must.Succeed(err)
		if !strings.HasPrefix(pr.URL, "ws://") {
			ginkgo.Skip(fmt.Sprintf("the pairing JSON's url %s is not ws://", pr.URL))
		}
		must.That(pr.FP == "", "the pairing JSON's url %s is ws:// but its fp is %q: fp is the certificate's fingerprint or empty (P-2)", pr.URL, pr.FP)
	})

	specs.It("P-8", rules.MUST, "a paired device reconnects with device_id and credential", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device")
		a2 := must.Connect(ctx, "device again", a.Device, ptr(int64(0)))
		must.Equal("hello.ok device_id", a2.HelloOK.DeviceID, a.Device.ID)
	})

	specs.It("P-8", rules.INFO, "hello.ok of a reconnecting device carries no credential (docs/protocol.md)", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device")
		a2 := must.Connect(ctx, "device again", a.Device, ptr(int64(0)))
		must.That(a2.HelloOK.Credential == nil, "hello.ok re-sent a credential to a paired device")
	})
})

var _ = conformance.Section(sectionPairing, func(specs *conformance.Specs) {
	specs.It("P-6", rules.MUST, "a token with a paired device's bare device_id never yields that device, which keeps its credential", func(ctx ginkgo.SpecContext) {
		// Note 9 prefers a refusal (checked at SHOULD); a server may also
		// ignore the device_id and pair a new device. What it may not do is
		// hand a token's holder the device the device_id names.
		old := must.Pair(ctx, "paired device")
		c := must.Dial(ctx, "token with a bare device_id")
		ok, err := c.Hello(ctx, lmp.Hello{Token: must.Token(ctx), DeviceID: old.Device.ID})
		if err == nil {
			must.That(ok.DeviceID != old.Device.ID, "a token sent with device_id %s paired that device, not a new one (P-6)", old.Device.ID)
		}
		again := must.Connect(ctx, "paired device again", old.Device, nil)
		must.Equal("hello.ok device_id of the paired device reconnecting with its credential", again.HelloOK.DeviceID, old.Device.ID)
	})

	// P-3 has a new device pair with its first frame. A token hello as a
	// later frame, or a token inside a first frame of another type, pairs
	// nothing: a server may refuse it with an error, close the connection or
	// ignore it, but it answers no hello.ok.
	specs.It("P-3", rules.MUST, "a token hello on an already authenticated connection pairs no device: no hello.ok answers it", func(ctx ginkgo.SpecContext) {
		c := must.Pair(ctx, "paired device")
		tok := must.Token(ctx)
		c.LearnSecret(conformance.SecretToken, tok)
		must.Send(ctx, c, lmp.Hello{ProtocolVersion: lmp.Version, Token: tok, DeviceInfo: client.DefaultDeviceInfo})
		// The pong (or the connection's end) comes after whatever the server
		// answered the hello with; a server that ends the connection at a
		// second hello (note 16) may have closed it before the ping.
		_ = should.Send(ctx, c, lmp.Ping{})
		f, err := should.Expect(ctx, c, match.Type(lmp.TypeHelloOK, lmp.TypePong))
		must.That(err != nil || f.Type == lmp.TypePong, "a token hello sent after authentication was answered with %s", c.Describe(f))
	})

	specs.It("P-3,F-2", rules.MUST, "a first frame of another type carrying a hello's token pairs no device: no hello.ok answers it", func(ctx ginkgo.SpecContext) {
		tok := must.Token(ctx)
		c := must.Dial(ctx, "device")
		c.LearnSecret(conformance.SecretToken, tok)
		must.SendJSON(ctx, c, map[string]any{"v": 1, "type": lmp.TypeTaskList, "payload": map[string]any{
			"request_id": "typed-hello", "protocol_version": lmp.Version, "token": tok,
			"device_info": map[string]any{"model": "m", "os": "o", "app_version": "1"},
		}})
		// A refusal (an error, or the connection's end) comes first; a
		// server that takes the frame for a hello answers hello.ok.
		f, err := should.Expect(ctx, c, match.Any(match.Type(lmp.TypeError, lmp.TypeHelloOK, lmp.TypeTaskListResult), match.Request("typed-hello")))
		must.That(err != nil || f.Type == lmp.TypeError, "a task.list carrying a token, sent as the first frame, was answered with %s", c.Describe(f))
	})
})
