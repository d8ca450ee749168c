package campaign

import (
	"context"
	"fmt"
	"sync"

	"github.com/loomi-lmp/lmpkit/client"
)

// pairDevices pairs n devices through the pairing endpoint (P-1, P-3).
func (e *engine) pairDevices(ctx context.Context, n int) ([]client.Device, error) {
	var (
		mu   sync.Mutex
		out  []client.Device
		errs []error
		wg   sync.WaitGroup
	)
	sem := make(chan struct{}, 8)
	for range n {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			d, err := e.pairOne(ctx)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			out = append(out, d)
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return out, nil
}

func (e *engine) pairOne(ctx context.Context) (client.Device, error) {
	tok, err := e.mintToken(ctx)
	if err != nil {
		return client.Device{}, err
	}
	c, d, _, err := client.PairDevice(ctx, e.cfg.URL, tok, &client.Options{HTTPClient: e.cfg.HTTPClient})
	if err != nil {
		return client.Device{}, fmt.Errorf("campaign: pair a device: %s", e.secrets.redact(err.Error()))
	}
	c.Close()
	e.secrets.add(d.Credential, d.ID)
	return d, nil
}

// mintToken asks the pairing endpoint for a token and remembers it as a
// secret (S-1).
func (e *engine) mintToken(ctx context.Context) (string, error) {
	pr, err := client.Pair(ctx, e.cfg.PairURL, 0, e.cfg.HTTPClient)
	if err != nil {
		return "", fmt.Errorf("campaign: mint a pairing token at %s: %w", e.cfg.PairURL, err)
	}
	e.secrets.add(pr.Token, "token")
	return pr.Token, nil
}
