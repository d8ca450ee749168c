package suites

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/must"
	"github.com/loomi-lmp/lmpkit/suites/rules"
	"github.com/loomi-lmp/lmpkit/suites/should"
)

// pairTTLProbe mints a token with a short TTL, waits past its expiry and
// tries to pair with it (P-5). It runs in the background from the start of
// the suite.
var pairTTLProbe = conformance.NewProbe("token TTL", func(ctx context.Context, p *conformance.Probe) error {
	const ttl = 2 * time.Second
	t := conformance.Current()
	if t.PairURL == "" {
		return errSkip("needs --pair-url to request a short TTL")
	}
	mintCtx, cancel := context.WithTimeout(ctx, conformance.Wait())
	pr, err := t.MintToken(mintCtx, ttl)
	cancel()
	if err != nil {
		return err
	}
	expires := lmp.TimeOf(pr.ExpiresAt)
	if until := time.Until(expires); until > 2*time.Minute {
		return errSkip(fmt.Sprintf("the server ignored the requested %v TTL (token expires in %v)", ttl, until.Round(time.Second)))
	}
	// Wait for the expiry itself: this is the timer under test.
	timer := time.NewTimer(time.Until(expires) + slack(ttl))
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	c, err := p.Dial(ctx, nil)
	if err != nil {
		return err
	}
	helloCtx, cancel := context.WithTimeout(ctx, conformance.Wait())
	defer cancel()
	ok, err := c.Hello(helloCtx, lmp.Hello{Token: pr.Token})
	if err == nil {
		return fmt.Errorf("an expired token paired device %s (P-5)", ok.DeviceID)
	}
	if se, isSE := should.ServerError(err); isSE {
		p.Notef("refused with %s", se.Code)
	}
	return nil
})

// errSkip marks a probe outcome that means "cannot be checked here".
type errSkip string

func (e errSkip) Error() string { return string(e) }

// awaitProbe waits for p and fails or skips the spec by its outcome.
func awaitProbe(ctx context.Context, p *conformance.Probe) {
	err := p.Await(ctx)
	if s, ok := err.(errSkip); ok {
		ginkgo.Skip(string(s))
	}
	must.Succeed(err, "probe %s", p.Name)
	for _, n := range p.Notes() {
		ginkgo.AddReportEntry("probe "+p.Name, n)
	}
}

var _ = conformance.Section("§3 Pairing", "pairing", func() {
	conformance.It("P-1,P-2", rules.MUST, "the pairing endpoint mints a token; the pairing JSON is {v:1,url,token,name,fp}", func(ctx ginkgo.SpecContext) {
		t := target()
		pr, err := t.MintToken(ctx, 0)
		must.Succeed(err)
		Expect(pr.V).To(Equal(1), "pairing JSON v")
		Expect(pr.Token).NotTo(Equal(""), "pairing JSON token")
		Expect(pr.URL).To(gomegaMatchRegexp(`^wss?://`), "pairing JSON url")
		if t.PairURL != "" {
			// The raw JSON must hold every QR field, fp and name included
			// even when empty.
			raw := postPair(ctx, nil)
			for _, k := range []string{"v", "url", "token", "name", "fp"} {
				Expect(raw).To(HaveKey(k), "pairing JSON lacks %q (P-2)", k)
			}
		}
	})

	conformance.It("P-1", rules.SHOULD, "the pairing endpoint refuses requests carrying forwarding headers (note 13)", func(ctx ginkgo.SpecContext) {
		if target().PairURL == "" {
			ginkgo.Skip("needs --pair-url")
		}
		for _, h := range []string{"X-Forwarded-For", "Forwarded", "X-Real-IP"} {
			status := pairStatus(ctx, http.Header{h: {"203.0.113.7"}})
			Expect(status).To(Equal(http.StatusForbidden), "POST %s with %s", lmp.PathPairNew, h)
		}
	})

	conformance.It("P-7", rules.MUST, "hello.ok of a new device carries device_id and a credential of 32 URL-safe random bytes", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device A")
		b := must.Pair(ctx, "device B")
		for _, c := range []*conformance.Conn{a, b} {
			raw, err := base64.RawURLEncoding.DecodeString(c.Device.Credential)
			if err != nil {
				raw, err = base64.URLEncoding.DecodeString(c.Device.Credential)
			}
			must.Succeed(err, "%s: credential is not URL-safe base64", c.Name)
			Expect(len(raw)).To(Equal(32), "%s: credential length in bytes", c.Name)
		}
		Expect(a.Device.ID).NotTo(Equal(b.Device.ID), "two devices got the same device_id")
		Expect(a.Device.Credential).NotTo(Equal(b.Device.Credential), "two devices got the same credential")
	})

	conformance.It("P-4", rules.MUST, "a token is single-use: a second hello with it is refused", func(ctx ginkgo.SpecContext) {
		tok := must.Token(ctx)
		c, err := should.PairWith(ctx, "first", tok)
		must.Succeed(err)
		_ = c
		_, err = should.PairWith(ctx, "second", tok)
		Expect(err).To(gomegaHaveOccurred(), "the token paired a second device (P-4)")
	})

	conformance.It("P-4", rules.MUST, "of N simultaneous hellos with one token exactly one pairs", func(ctx ginkgo.SpecContext) {
		const n = 8
		tok := must.Token(ctx)
		var wg sync.WaitGroup
		var mu sync.Mutex
		paired, refused := 0, 0
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer ginkgo.GinkgoRecover()
				_, err := should.PairWith(ctx, fmt.Sprintf("racer %d", i), tok)
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					paired++
				} else {
					refused++
				}
			}()
		}
		wg.Wait()
		Expect(paired).To(Equal(1), "devices paired by one token (%d refused)", refused)
	})

	conformance.It("P-4,P-5", rules.SHOULD, "an unknown token is refused with a fatal invalid_token and close 1008", func(ctx ginkgo.SpecContext) {
		c := must.Dial(ctx, "device")
		_, err := c.Hello(ctx, lmp.Hello{Token: should.NewID("not-a-token-")})
		se, ok := should.ServerError(err)
		Expect(ok).To(BeTrue(), "hello with an unknown token: %v", err)
		Expect(se.Code).To(Equal(lmp.CodeInvalidToken))
		Expect(se.Fatal).To(BeTrue())
		Expect(must.Closed(ctx, conformance.Wait(), c).Code).To(Equal(lmp.ClosePolicyViolation))
	})

	conformance.It("P-3", rules.MUST, "an unknown token does not authenticate the connection", func(ctx ginkgo.SpecContext) {
		c := must.Dial(ctx, "device")
		_, err := c.Hello(ctx, lmp.Hello{Token: should.NewID("not-a-token-")})
		Expect(err).To(gomegaHaveOccurred(), "an unknown token got hello.ok")
	})

	conformance.It("P-6", rules.SHOULD, "a token sent with a device identity is refused and not consumed (note 9)", func(ctx ginkgo.SpecContext) {
		old := must.Pair(ctx, "paired device")
		tok := must.Token(ctx)
		c := must.Dial(ctx, "token with identity")
		_, err := c.Hello(ctx, lmp.Hello{Token: tok, DeviceID: old.Device.ID, Credential: old.Device.Credential})
		se, ok := should.ServerError(err)
		Expect(ok).To(BeTrue(), "hello with token and identity: %v", err)
		Expect(se.Code).To(Equal(lmp.CodeTokenWithIdentity))
		Expect(se.Fatal).To(BeTrue())
		Expect(must.Closed(ctx, conformance.Wait(), c).Code).To(Equal(lmp.ClosePolicyViolation))
		// The token is still good for a new device.
		_, err = should.PairWith(ctx, "new device", tok)
		must.Succeed(err, "the refused hello consumed the token")
	})

	conformance.It("P-5", rules.MUST, "a token expires after its TTL", func(ctx ginkgo.SpecContext) {
		awaitProbe(ctx, pairTTLProbe)
	}, conformance.Timer, ginkgo.SpecTimeout(90*time.Second))

	conformance.It("P-5", rules.MUST, "a token's default TTL is the server's profile TTL (300 s by the spec)", func(ctx ginkgo.SpecContext) {
		before := time.Now()
		pr, err := target().MintToken(ctx, 0)
		must.Succeed(err)
		if pr.ExpiresAt == 0 {
			ginkgo.Skip("the pairing answer carries no expires_at")
		}
		got := lmp.TimeOf(pr.ExpiresAt).Sub(before)
		want := profile().PairTTL
		Expect(got).To(BeNumerically("~", want, slack(want)+5*time.Second), "token lifetime")
	})

	conformance.It("P-8", rules.MUST, "a paired device reconnects with device_id and credential", func(ctx ginkgo.SpecContext) {
		a := must.Pair(ctx, "device")
		a2 := must.Connect(ctx, "device again", a.Device, ptr(int64(0)))
		Expect(a2.HelloOK.DeviceID).To(Equal(a.Device.ID))
		Expect(a2.HelloOK.Credential).To(gomegaBeNil(), "hello.ok re-sent a credential to a paired device")
	})
})

// postPair POSTs to the pairing URL and returns the decoded JSON answer.
func postPair(ctx context.Context, h http.Header) map[string]any {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target().PairURL, bytes.NewReader([]byte("{}")))
	must.Succeed(err)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := target().HTTPClient.Do(req)
	must.Succeed(err)
	defer resp.Body.Close()
	var m map[string]any
	must.Succeed(decodeJSON(resp.Body, &m))
	if tok, ok := m["token"].(string); ok {
		conformance.RecordSecret(conformance.SecretToken, tok) // S-1: the log scan looks for it
	}
	return m
}

// pairStatus POSTs to the pairing URL with extra headers and returns the
// status code; a minted token is discarded unused.
func pairStatus(ctx context.Context, h http.Header) int {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target().PairURL, bytes.NewReader([]byte("{}")))
	must.Succeed(err)
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := target().HTTPClient.Do(req)
	must.Succeed(err)
	resp.Body.Close()
	return resp.StatusCode
}
