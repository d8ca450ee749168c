package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// CheckHealth answers whether healthURL serves exactly {"ok":true,"v":1}
// (T-2). The error names the status or the body that came instead.
func CheckHealth(ctx context.Context, hc *http.Client, healthURL string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, healthURL, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	var h lmp.Health
	if err := json.Unmarshal(raw, &h); err != nil || !h.OK || h.V != lmp.Version {
		return fmt.Errorf("body %.100q is not {\"ok\":true,\"v\":1}", raw)
	}
	return nil
}
