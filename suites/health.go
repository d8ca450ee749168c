package suites

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
	"github.com/loomi-lmp/lmpkit/suites/must"
)

// Liveness: GET /health and a ping answered on a connection.

// getHealth sends GET u with the target's HTTP client.
func getHealth(ctx context.Context, u string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	return target(ctx).HTTPClient.Do(req)
}

// requireHealthy fails the spec unless resp, the answer to GET u, is HTTP
// 200 with exactly {"ok":true,"v":1} (T-2), and closes its body.
func requireHealthy(resp *http.Response, u string) {
	ginkgo.GinkgoHelper()
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	must.Succeed(err)
	must.That(resp.StatusCode == http.StatusOK, "GET %s: want HTTP 200, got %d %q", u, resp.StatusCode, body)
	var got map[string]any
	must.Succeed(json.Unmarshal(body, &got), "GET %s: body %q is not JSON", u, body)
	must.That(reflect.DeepEqual(got, map[string]any{"ok": true, "v": float64(1)}), `GET %s: want {"ok":true,"v":1}, got %s`, u, body)
}

// pinged sends a ping on c and returns c.
func pinged(ctx ginkgo.SpecContext, c *conformance.Conn) *conformance.Conn {
	ginkgo.GinkgoHelper()
	must.Send(ctx, c, lmp.Ping{})
	return c
}
