package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Client calls a driver API. Its methods are safe for concurrent use.
type Client struct {
	base string // up to and including Prefix
	hc   *http.Client
}

// New returns a client of the driver API at baseURL: the server's origin,
// such as "http://127.0.0.1:8787", with or without Prefix. A nil
// httpClient means http.DefaultClient.
func New(baseURL string, httpClient *http.Client) *Client {
	if httpClient == nil {
		httpClient = http.DefaultClient
	}
	base := strings.TrimRight(baseURL, "/")
	if !strings.HasSuffix(base, Prefix) {
		base += Prefix
	}
	return &Client{base: base, hc: httpClient}
}

// APIError is a non-2xx answer from the driver API.
type APIError struct {
	Method, Route string
	Status        int
	Message       string // the server's {"error": …}, or the raw body
}

func (e *APIError) Error() string {
	return fmt.Sprintf("driver %s %s: %d %s: %s", e.Method, e.Route, e.Status, http.StatusText(e.Status), e.Message)
}

// maxResponse bounds a response body.
const maxResponse = 16 << 20

func (c *Client) do(ctx context.Context, method, route string, in, out any) error {
	var body io.Reader
	if in != nil {
		raw, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("driver %s %s: encode request: %w", method, route, err)
		}
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+route, body)
	if err != nil {
		return fmt.Errorf("driver %s %s: %w", method, route, err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("driver %s %s: %w", method, route, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return fmt.Errorf("driver %s %s: read response: %w", method, route, err)
	}
	if resp.StatusCode/100 != 2 {
		var e Error
		msg := strings.TrimSpace(string(raw))
		if json.Unmarshal(raw, &e) == nil && e.Error != "" {
			msg = e.Error
		}
		return &APIError{Method: method, Route: route, Status: resp.StatusCode, Message: msg}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("driver %s %s: decode response: %w", method, route, err)
	}
	return nil
}

// Profile returns the server's effective timing profile.
func (c *Client) Profile(ctx context.Context) (Profile, error) {
	var p Profile
	err := c.do(ctx, http.MethodGet, RouteProfile, nil, &p)
	return p, err
}

// Hook fires a plugin hook with the given keyword arguments.
func (c *Client) Hook(ctx context.Context, req HookRequest) error {
	return c.do(ctx, http.MethodPost, RouteHook, req, &OK{})
}

// Send calls the adapter's send(): a notification.
func (c *Client) Send(ctx context.Context, req SendRequest) (SendResponse, error) {
	var r SendResponse
	err := c.do(ctx, http.MethodPost, RouteSend, req, &r)
	return r, err
}

// Approval makes Hermes ask for an exec approval. It returns once the
// prompt was delivered; the wait goes on in the server.
func (c *Client) Approval(ctx context.Context, req ApprovalRequest) (ApprovalResponse, error) {
	var r ApprovalResponse
	err := c.do(ctx, http.MethodPost, RouteApproval, req, &r)
	return r, err
}

// Play plays a scenario; with req.Wait it returns when the scenario ends.
func (c *Client) Play(ctx context.Context, req PlayRequest) (PlayResponse, error) {
	var r PlayResponse
	err := c.do(ctx, http.MethodPost, RoutePlay, req, &r)
	return r, err
}

// Scenarios lists the playable scenarios.
func (c *Client) Scenarios(ctx context.Context) (ScenarioList, error) {
	var r ScenarioList
	err := c.do(ctx, http.MethodGet, RouteScenarios, nil, &r)
	return r, err
}

// Calls returns the calls the adapter made into Hermes, oldest first.
func (c *Client) Calls(ctx context.Context) (CallList, error) {
	var r CallList
	err := c.do(ctx, http.MethodGet, RouteCalls, nil, &r)
	return r, err
}

// ClearCalls forgets the recorded calls.
func (c *Client) ClearCalls(ctx context.Context) error {
	return c.do(ctx, http.MethodDelete, RouteCalls, nil, &OK{})
}

// Hooks returns the hooks Hermes delivered to the adapter, oldest first,
// each listed once the adapter's callback has returned.
func (c *Client) Hooks(ctx context.Context) (HookList, error) {
	var r HookList
	err := c.do(ctx, http.MethodGet, RouteHooks, nil, &r)
	return r, err
}

// ClearHooks forgets the recorded hooks.
func (c *Client) ClearHooks(ctx context.Context) error {
	return c.do(ctx, http.MethodDelete, RouteHooks, nil, &OK{})
}

// Session seeds a row in the session store.
func (c *Client) Session(ctx context.Context, req SessionRequest) (SessionResponse, error) {
	var r SessionResponse
	err := c.do(ctx, http.MethodPost, RouteSession, req, &r)
	return r, err
}

// Hold makes Hermes slow to answer the adapter's next matching call, until
// Release or the hold's bound (see HoldRequest).
func (c *Client) Hold(ctx context.Context, req HoldRequest) (HoldResponse, error) {
	var r HoldResponse
	err := c.do(ctx, http.MethodPost, RouteHold, req, &r)
	return r, err
}

// Release ends a hold: its held call, if any, is answered now.
func (c *Client) Release(ctx context.Context, req ReleaseRequest) error {
	return c.do(ctx, http.MethodPost, RouteRelease, req, &OK{})
}
