package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// PairURLFor derives the pairing endpoint of a loopback server from its
// WebSocket URL: ws://127.0.0.1:8787/ws → http://127.0.0.1:8787/internal/pair/new.
func PairURLFor(wsURL string) (string, error) { return HTTPURLFor(wsURL, lmp.PathPairNew) }

// HealthURLFor derives the GET /health URL (T-2) from a WebSocket URL.
func HealthURLFor(wsURL string) (string, error) { return HTTPURLFor(wsURL, lmp.PathHealth) }

// HTTPURLFor returns the http(s) URL of path on the host of a ws(s) URL:
// the endpoints an LMP server serves beside /ws on the same port.
func HTTPURLFor(wsURL, path string) (string, error) {
	u, err := url.Parse(wsURL)
	if err != nil {
		return "", fmt.Errorf("parse %q: %w", wsURL, err)
	}
	if u.Host == "" || u.Opaque != "" {
		return "", fmt.Errorf("%q has no host", wsURL)
	}
	switch u.Scheme {
	case "ws":
		u.Scheme = "http"
	case "wss":
		u.Scheme = "https"
	default:
		return "", fmt.Errorf("%q is not a ws:// or wss:// URL", wsURL)
	}
	u.Path, u.RawPath, u.RawQuery, u.Fragment = path, "", "", ""
	out := u.String()
	if _, err := url.Parse(out); err != nil {
		return "", fmt.Errorf("%q: host %q makes no usable URL: %w", wsURL, u.Host, err)
	}
	return out, nil
}

// Pair mints a pairing token from the loopback pairing endpoint (P-1). A
// zero ttl asks for the server's default.
func Pair(ctx context.Context, pairURL string, ttl time.Duration, httpClient *http.Client) (lmp.PairResponse, error) {
	if httpClient == nil {
		httpClient = http.DefaultClient
	}
	body, _ := json.Marshal(lmp.PairRequest{TTL: ttl.Seconds()})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, pairURL, bytes.NewReader(body))
	if err != nil {
		return lmp.PairResponse{}, fmt.Errorf("pair: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := httpClient.Do(req)
	if err != nil {
		return lmp.PairResponse{}, fmt.Errorf("pair: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return lmp.PairResponse{}, fmt.Errorf("pair: read answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		var he lmp.HTTPError
		if json.Unmarshal(raw, &he) == nil && he.Error != "" {
			return lmp.PairResponse{}, fmt.Errorf("pair: HTTP %d: %s", resp.StatusCode, he.Error)
		}
		return lmp.PairResponse{}, fmt.Errorf("pair: HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(raw)))
	}
	var pr lmp.PairResponse
	if err := json.Unmarshal(raw, &pr); err != nil {
		return lmp.PairResponse{}, fmt.Errorf("pair: answer is not a pairing payload: %w", err)
	}
	return pr, nil
}

// Device is a paired device's identity, as the app stores it (P-7).
type Device struct {
	ID         string
	Credential string
}

// String never shows the credential (S-1).
func (d Device) String() string {
	return fmt.Sprintf("device %s (credential %s:%s)", d.ID, lmp.Redacted, lmp.Fingerprint(d.Credential))
}

// PairDevice dials wsURL and pairs a new device with token, returning the
// authenticated connection and the device identity from hello.ok.
func PairDevice(ctx context.Context, wsURL, token string, opts *Options) (*Conn, Device, lmp.HelloOK, error) {
	c, err := Dial(ctx, wsURL, opts)
	if err != nil {
		return nil, Device{}, lmp.HelloOK{}, err
	}
	ok, err := c.Hello(ctx, lmp.Hello{Token: token})
	if err != nil {
		c.CloseNow()
		return nil, Device{}, lmp.HelloOK{}, err
	}
	if ok.Credential == nil {
		c.CloseNow()
		return nil, Device{}, ok, fmt.Errorf("hello.ok after pairing carries no credential (P-7)")
	}
	return c, Device{ID: ok.DeviceID, Credential: *ok.Credential}, ok, nil
}

// Connect dials wsURL and authenticates as d, asking for the events after
// lastSeq when it is not nil (P-8, E-5).
func Connect(ctx context.Context, wsURL string, d Device, lastSeq *int64, opts *Options) (*Conn, lmp.HelloOK, error) {
	c, err := Dial(ctx, wsURL, opts)
	if err != nil {
		return nil, lmp.HelloOK{}, err
	}
	ok, err := c.Hello(ctx, lmp.Hello{DeviceID: d.ID, Credential: d.Credential, LastSeq: lastSeq})
	if err != nil {
		c.CloseNow()
		return nil, lmp.HelloOK{}, err
	}
	return c, ok, nil
}
