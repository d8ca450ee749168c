package suites

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/must"
)

// Pairing devices: the pairing endpoint, several devices at once, LAN addresses.

// wsURL is the shape of the pairing JSON's url (P-2).
var wsURL = regexp.MustCompile(`^wss?://`)

// postPair POSTs to the pairing URL and returns the decoded JSON answer.
func postPair(ctx context.Context, h http.Header) map[string]any {
	ginkgo.GinkgoHelper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target(ctx).PairURL, bytes.NewReader([]byte("{}")))
	must.Succeed(err)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := target(ctx).HTTPClient.Do(req)
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
	ginkgo.GinkgoHelper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target(ctx).PairURL, bytes.NewReader([]byte("{}")))
	must.Succeed(err)
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := target(ctx).HTTPClient.Do(req)
	must.Succeed(err)
	resp.Body.Close()
	return resp.StatusCode
}

func pairN(ctx ginkgo.SpecContext, n int) []*conformance.Conn {
	ginkgo.GinkgoHelper()
	out := make([]*conformance.Conn, n)
	for i := range out {
		out[i] = must.Pair(ctx, fmt.Sprintf("device %c", 'A'+i))
	}
	return out
}

// networkQR mints a token and returns the pairing JSON's url with it, or
// skips the spec when that url is not a network address this host reaches:
// a loopback url (the server is not deployed on the LAN), or one that does
// not answer a TCP connection from here (a public name behind a proxy
// elsewhere).
func networkQR(ctx context.Context) (wsURL, token string) {
	ginkgo.GinkgoHelper()
	pr, err := target(ctx).MintToken(ctx, 0)
	must.Succeed(err)
	u, err := url.Parse(pr.URL)
	must.Succeed(err, "the pairing JSON's url %q", pr.URL)
	if client.IsLoopbackURL(pr.URL) {
		ginkgo.Skip("the pairing JSON's url " + pr.URL + " is loopback: the server is not deployed on the LAN")
	}
	dialCtx, cancel := context.WithTimeout(ctx, conformance.Wait())
	defer cancel()
	if err := client.Answers(dialCtx, client.HostPort(u)); err != nil {
		ginkgo.Skip("the pairing JSON's url " + pr.URL + " is not reachable from this host: " + err.Error())
	}
	return pr.URL, pr.Token
}

// lanBases returns the target's network addresses, or skips the spec.
func lanBases(ctx context.Context) []conformance.LANBase {
	ginkgo.GinkgoHelper()
	bases, reason := target(ctx).LANBases(ctx)
	if len(bases) == 0 {
		ginkgo.Skip(reason)
	}
	return bases
}

// pairFrom POSTs a pairing request to u with the given Host and reports
// the status and whether the answer carried a token (recorded as a secret
// for S-1, and never used). err is a failure before any HTTP answer.
func pairFrom(ctx context.Context, hc *http.Client, u, host string) (status int, minted bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader([]byte("{}")))
	if err != nil {
		return 0, false, err
	}
	req.Host = host
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return 0, false, err
	}
	defer resp.Body.Close()
	var pr struct {
		Token string `json:"token"`
	}
	if decodeJSON(resp.Body, &pr) == nil && pr.Token != "" {
		conformance.RecordSecret(conformance.SecretToken, pr.Token)
		return resp.StatusCode, true, nil
	}
	return resp.StatusCode, false, nil
}

// skipOnCertificate skips the spec when err is the target's certificate
// failing verification at a network address it does not name: a
// deployment question, not the protocol's.
func skipOnCertificate(err error, u string) {
	ginkgo.GinkgoHelper()
	var cve *tls.CertificateVerificationError
	if errors.As(err, &cve) {
		ginkgo.Skip("the server's certificate does not verify at " + u + ": " + cve.Err.Error())
	}
}
