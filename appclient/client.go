package appclient

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"time"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// Options configure the reference app client.
type Options struct {
	// PairingFile holds the pairing JSON (the QR payload); the client
	// waits for it to name a token it has not used.
	PairingFile string
	// StateFile is where the client stores its pairing and last_seq;
	// empty keeps them in memory (a restart then starts from that copy).
	StateFile string
	// ReconnectDelay is the wait before reconnecting after a disconnect
	// (default 1 s).
	ReconnectDelay time.Duration
	// DeviceInfo is sent in hello.
	DeviceInfo lmp.DeviceInfo
	// Logger receives what the app would show its user; nil discards it.
	Logger *slog.Logger
}

// ErrUnsupportedVersion ends Run when the server's hello.ok states a
// protocol_version the client does not support (V-2, C-9): it says so
// and stops, rather than guess a downgrade.
var ErrUnsupportedVersion = errors.New("the server speaks a protocol version this app does not support: update the app")

// Why a session ended, besides a disconnect.
var (
	errRestart = errors.New("restart")
	errPair    = errors.New("pair again")
)

// client is one run of the reference app.
type client struct {
	o    Options
	log  *slog.Logger
	st   state
	next int64 // request_id counter
	// pending are the requests sent and not answered yet: after a
	// reconnect they are sent again with their request_id (C-10).
	pending []pendingRequest
	// approvals are the prompts shown, by approval_id.
	approvals map[string]*prompt
	// memory is the stored state when there is no state file.
	memory state
}

type pendingRequest struct {
	id    string
	frame lmp.Payload
}

type prompt struct {
	choices []string
	// ended is set by approval.resolved, an already_resolved error, or
	// the app's own resolve: the prompt is gone from the screen.
	ended bool
}

// Run runs the app until ctx ends or the server's protocol version is
// unsupported (ErrUnsupportedVersion).
func Run(ctx context.Context, o Options) error {
	if o.ReconnectDelay <= 0 {
		o.ReconnectDelay = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.DeviceInfo.Model == "" {
		o.DeviceInfo = lmp.DeviceInfo{Model: "appclient", OS: "go", AppVersion: "1"}
	}
	c := &client{o: o, log: o.Logger, approvals: map[string]*prompt{}}
	if err := c.coldStart(); err != nil {
		return err
	}
	for ctx.Err() == nil {
		err := c.session(ctx)
		switch {
		case errors.Is(err, ErrUnsupportedVersion):
			c.log.Error("stopped", "reason", err)
			return err
		case errors.Is(err, errRestart):
			c.log.Info("restarting cold")
			if err := c.coldStart(); err != nil {
				return err
			}
			continue
		case errors.Is(err, errPair):
			c.log.Info("forgetting the pairing")
			c.st = state{UsedToken: c.st.UsedToken}
			c.pending = nil
			c.store()
			continue
		}
		c.log.Info("disconnected; reconnecting", "reason", err)
		select {
		case <-ctx.Done():
		case <-time.After(o.ReconnectDelay):
		}
	}
	return ctx.Err()
}

// coldStart begins from what the app stored, and nothing else.
func (c *client) coldStart() error {
	if c.o.StateFile == "" {
		c.st = c.memory
	} else {
		st, err := load(c.o.StateFile)
		if err != nil {
			return fmt.Errorf("state file: %w", err)
		}
		c.st = st
	}
	c.pending, c.approvals = nil, map[string]*prompt{}
	return nil
}

func (c *client) store() {
	c.memory = c.st
	if err := save(c.o.StateFile, c.st); err != nil {
		c.log.Error("cannot store the state", "err", err)
	}
}

// waitPairing waits for a pairing JSON whose token the app has not used.
func (c *client) waitPairing(ctx context.Context) (lmp.QRPayload, error) {
	for {
		raw, err := os.ReadFile(c.o.PairingFile)
		if err == nil {
			var qr lmp.QRPayload
			if json.Unmarshal(raw, &qr) == nil && qr.Token != "" && qr.Token != c.st.UsedToken {
				return qr, nil
			}
		}
		select {
		case <-ctx.Done():
			return lmp.QRPayload{}, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// httpClient dials url; with a fingerprint it accepts exactly the pinned
// certificate, whatever names it holds (C-2).
func httpClient(fp string) *http.Client {
	if fp == "" {
		return &http.Client{Timeout: 30 * time.Second}
	}
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
		InsecureSkipVerify: true, // replaced by the pin below
		VerifyConnection: func(cs tls.ConnectionState) error {
			sum := sha256.Sum256(cs.PeerCertificates[0].Raw)
			if hex.EncodeToString(sum[:]) != fp {
				return errors.New("the server's certificate is not the one the pairing code pins")
			}
			return nil
		},
	}}}
}

// newRequestID is a fresh request_id: distinct for distinct requests (C-10).
func (c *client) newRequestID() string {
	c.next++
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return fmt.Sprintf("r%d_%s", c.next, hex.EncodeToString(b))
}

// session connects once, authenticates and serves the connection until it
// ends.
func (c *client) session(ctx context.Context) error {
	var hello lmp.Hello
	url, fp := c.st.URL, c.st.FP
	if !c.st.paired() {
		qr, err := c.waitPairing(ctx)
		if err != nil {
			return err
		}
		url, fp = qr.URL, qr.FP
		hello = lmp.Hello{ProtocolVersion: lmp.Version, Token: qr.Token, DeviceInfo: c.o.DeviceInfo}
	} else {
		last := c.st.LastSeq
		hello = lmp.Hello{ProtocolVersion: lmp.Version, DeviceID: c.st.DeviceID, Credential: c.st.Credential, LastSeq: &last, DeviceInfo: c.o.DeviceInfo}
	}
	dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	ws, _, err := websocket.Dial(dctx, url, &websocket.DialOptions{HTTPClient: httpClient(fp)})
	cancel()
	if err != nil {
		return fmt.Errorf("connect to %s: %w", url, err)
	}
	ws.SetReadLimit(lmp.MaxFrameBytes)
	conn := newConn(ws)
	defer conn.close()
	if err := conn.write(ctx, hello); err != nil {
		return err
	}
	if hello.Token != "" {
		// Sent: the token is used, whatever happens next (P-4).
		c.st.UsedToken = hello.Token
		c.st.URL, c.st.FP = url, fp
		c.store()
	}
	go conn.read(ctx)
	return c.serve(ctx, conn, hello.Token != "")
}

// serve processes the connection's frames in order until it ends.
func (c *client) serve(ctx context.Context, conn *conn, pairing bool) error {
	authenticated := false
	defer c.store()
	for {
		f, ok := conn.nextFrame(ctx)
		if !ok {
			return conn.err()
		}
		if !authenticated {
			if f.Type != lmp.TypeHelloOK {
				return c.refused(f, pairing)
			}
			var ok lmp.HelloOK
			_ = json.Unmarshal(f.Payload, &ok)
			if !slices.Contains(lmp.SupportedVersions, ok.ProtocolVersion) {
				conn.closeNormally("unsupported protocol version")
				return fmt.Errorf("%w (protocol_version %d)", ErrUnsupportedVersion, ok.ProtocolVersion)
			}
			if pairing && ok.Credential != nil {
				c.st.DeviceID, c.st.Credential, c.st.LastSeq = ok.DeviceID, *ok.Credential, 0
				c.store()
				c.log.Info("paired", "device_id", ok.DeviceID)
			}
			authenticated = true
			if ok.Truncated {
				// The gap is lost: fetch the task list again (E-6, C-7).
				c.request(ctx, conn, lmp.TaskList{RequestID: c.newRequestID()})
			}
			// Requests left unanswered by the last connection go again,
			// with their request_id (C-10).
			for _, p := range c.pending {
				_ = conn.write(ctx, p.frame)
			}
			continue
		}
		if err := c.handle(ctx, conn, f); err != nil {
			return err
		}
	}
}

// refused handles an error in place of hello.ok.
func (c *client) refused(f lmp.Frame, pairing bool) error {
	var e lmp.Error
	_ = json.Unmarshal(f.Payload, &e)
	if !pairing && (e.Code == lmp.CodeInvalidCredential || e.Code == lmp.CodeDeviceRevoked) {
		c.log.Warn("the server no longer knows this device: pair again", "code", e.Code)
		return errPair
	}
	return fmt.Errorf("hello refused: %s %s", e.Code, e.Message)
}

// connectionScoped are the known frames that carry the current seq
// without being events: everything else, an unknown type included, is an
// event whose seq counts as processed (C-8).
var connectionScoped = []string{lmp.TypeHelloOK, lmp.TypeError, lmp.TypePing, lmp.TypePong, lmp.TypeAck, lmp.TypeTaskListResult}

// handle processes one frame after hello.ok.
func (c *client) handle(ctx context.Context, conn *conn, f lmp.Frame) error {
	if slices.Contains(connectionScoped, f.Type) {
		return c.handleReply(f)
	}
	// Events are taken in seq order; a seq at or below the highest
	// processed is a duplicate or a replay of something already shown
	// (E-2, E-7, C-5).
	if f.Seq <= c.st.LastSeq {
		return nil
	}
	c.st.LastSeq = f.Seq
	switch f.Type {
	case lmp.TypeApprovalRequired:
		p, err := lmp.DecodePayload[lmp.ApprovalRequired](f.Type, f.Payload)
		if err == nil {
			pr := &prompt{}
			for _, ch := range p.Choices {
				pr.choices = append(pr.choices, ch.Choice)
			}
			c.approvals[p.ApprovalID] = pr
		}
	case lmp.TypeApprovalResolved:
		p, err := lmp.DecodePayload[lmp.ApprovalResolved](f.Type, f.Payload)
		if err == nil {
			c.endPrompt(p.ApprovalID)
		}
	case lmp.TypeNotification:
		var n struct {
			Category string  `json:"category"`
			Title    string  `json:"title"`
			LMPCheck *action `json:"lmp_check"`
		}
		if json.Unmarshal(f.Payload, &n) == nil && n.Category == "diagnostic" && n.LMPCheck != nil {
			return c.act(ctx, conn, *n.LMPCheck)
		}
	}
	// Any other type, known or not, is shown or ignored (V-1, C-8).
	return nil
}

func (c *client) endPrompt(id string) {
	if p, ok := c.approvals[id]; ok {
		p.ended = true
	}
}

// handleReply handles a connection-scoped frame: an answer to a request.
func (c *client) handleReply(f lmp.Frame) error {
	var p struct {
		RequestID string `json:"request_id"`
		Code      string `json:"code"`
		Fatal     bool   `json:"fatal"`
	}
	_ = json.Unmarshal(f.Payload, &p)
	if f.Type == lmp.TypeError && p.Fatal {
		c.log.Warn("the server ends the connection", "code", p.Code)
	}
	if p.RequestID == "" {
		return nil
	}
	for i, r := range c.pending {
		if r.id != p.RequestID {
			continue
		}
		if res, ok := r.frame.(lmp.ApprovalResolve); ok && p.Code == lmp.CodeAlreadyResolved {
			// Someone else was first: the prompt is over (I-2, C-11).
			c.endPrompt(res.ApprovalID)
		}
		c.pending = slices.Delete(c.pending, i, i+1)
		break
	}
	return nil
}

// request sends a request and keeps it until it is answered.
func (c *client) request(ctx context.Context, conn *conn, p lmp.Payload) {
	var id string
	switch r := p.(type) {
	case lmp.SessionSend:
		id = r.RequestID
	case lmp.ApprovalResolve:
		id = r.RequestID
	case lmp.TaskList:
		id = r.RequestID
	}
	c.pending = append(c.pending, pendingRequest{id: id, frame: p})
	_ = conn.write(ctx, p)
}
