package campaign

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/driver"
)

// Config configures a campaign. Only URL is required.
type Config struct {
	// URL is the LMP WebSocket endpoint, ws:// or wss://, path /ws.
	URL string
	// PairURL mints pairing tokens (P-1); derived from URL when empty,
	// which works for a server on this machine.
	PairURL string
	// HealthURL is GET /health (T-2); derived from URL when empty.
	HealthURL string
	// DriverURL is the mock Hermes driver API, optional. With it the
	// campaign makes Hermes-side events flow (notifications, approvals) so
	// that the monitor has events to count and approvals can be raced.
	DriverURL string
	// HTTPClient is used for every HTTP request and WebSocket dial. Without
	// one, Run uses a client of its own whose transport is tuned for a
	// connection per episode (campaignTransport).
	HTTPClient *http.Client

	// Duration of the fuzzing phase (shrinking comes after); default 60 s.
	Duration time.Duration
	// Seed makes the run reproducible: every episode is a function of it.
	Seed uint64
	// Conns is the number of workers, each playing episodes one after the
	// other on a connection of its own; default 8. An episode that pauses
	// between its frames plays beside its worker while the worker goes on
	// (at most Conns such episodes at once), so up to twice Conns
	// connections may be open at a time.
	Conns int
	// Devices is the number of paired devices the workers share; default
	// Conns+2.
	Devices int

	// Schemas drive the frame generators and Validate checks server
	// frames; they default to EmbeddedSchemas and SchemaValidator.
	Schemas  *Schemas
	Validate Validator

	// OutDir receives one reproducer file per distinct finding; none are
	// written when empty.
	OutDir string
	// ShrinkBudget bounds the time spent minimising each finding; default
	// 20 s. A negative value turns shrinking off.
	ShrinkBudget time.Duration
	// MaxFindings bounds the distinct findings kept; default 20.
	MaxFindings int
	// Progress receives a live progress line at most once a second; nil
	// for none.
	Progress io.Writer

	// validateParses is set when Validate is SchemaValidator, which accepts
	// only well-formed JSON: the oracle then validates with
	// readServerFrame, which also reads a valid frame's envelope from its
	// parse, and scans one it did not read without parsing it again.
	validateParses bool
}

func (c *Config) setDefaults() error {
	if c.URL == "" {
		return errors.New("campaign: URL is required")
	}
	if c.Schemas == nil {
		s, err := EmbeddedSchemas()
		if err != nil {
			return err
		}
		c.Schemas = s
	}
	if c.Validate == nil {
		c.Validate, c.validateParses = SchemaValidator, true
	}
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") {
		return fmt.Errorf("campaign: URL %q is not a ws:// or wss:// URL", c.URL)
	}
	if c.PairURL == "" {
		if c.PairURL, err = client.PairURLFor(c.URL); err != nil {
			return err
		}
	}
	if c.HealthURL == "" {
		if c.HealthURL, err = client.HealthURLFor(c.URL); err != nil {
			return err
		}
	}
	if c.DriverURL != "" && !strings.HasSuffix(strings.TrimRight(c.DriverURL, "/"), driver.Prefix) {
		c.DriverURL = strings.TrimRight(c.DriverURL, "/") + driver.Prefix
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if c.Duration <= 0 {
		c.Duration = 60 * time.Second
	}
	if c.Conns <= 0 {
		c.Conns = 8
	}
	if c.Devices <= 0 {
		c.Devices = c.Conns + 2
	}
	if c.ShrinkBudget == 0 {
		c.ShrinkBudget = 20 * time.Second
	}
	if c.MaxFindings <= 0 {
		c.MaxFindings = 20
	}
	return nil
}
