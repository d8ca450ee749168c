package campaign

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// fake faults, each a deliberately broken handler.
const (
	faultNone        = ""
	faultCloseCancel = "close-4999-on-run.cancel" // closes with an illegitimate code
	faultEchoSecret  = "echo-credential-on-task.list"
	faultSkipSeq     = "skip-a-seq"
)

// fakeServer is a small, correct LMP server for the engine's own tests,
// with one optional planted fault. It is not the reference server: it
// answers just enough of the protocol for the oracles to have something
// real to check.
type fakeServer struct {
	t     *testing.T
	fault string
	srv   *httptest.Server

	mu     sync.Mutex
	tokens map[string]bool
	creds  map[string]string // device → credential
	seq    map[string]int64  // device → last durable seq
	online map[string]int    // device → events numbered while it had a connection
	conns  map[*fakeConn]bool
	issued []string // every token and credential handed out
}

type fakeConn struct {
	ws     *websocket.Conn
	device string
	out    chan []byte
}

func newFakeServer(t *testing.T, fault string) *fakeServer {
	f := &fakeServer{t: t, fault: fault, tokens: map[string]bool{}, creds: map[string]string{},
		seq: map[string]int64{}, online: map[string]int{}, conns: map[*fakeConn]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"ok":true,"v":1}`))
	})
	mux.HandleFunc("POST /internal/pair/new", func(w http.ResponseWriter, r *http.Request) {
		tok := secret()
		f.mu.Lock()
		f.tokens[tok] = true
		f.issued = append(f.issued, tok)
		f.mu.Unlock()
		json.NewEncoder(w).Encode(lmp.PairResponse{QRPayload: lmp.QRPayload{V: 1, URL: f.url(), Token: tok, Name: "fake"}, ExpiresAt: 1e10})
	})
	mux.HandleFunc("GET /ws", f.serveWS)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go f.emit(ctx)
	return f
}

// secrets returns every token and credential the server handed out.
func (f *fakeServer) secrets() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.issued...)
}

func (f *fakeServer) url() string { return "ws" + strings.TrimPrefix(f.srv.URL, "http") + "/ws" }

func secret() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func mustFrame(seq int64, p lmp.Payload) []byte {
	fr, err := lmp.NewFrame(seq, time.Now(), nil, nil, p)
	if err != nil {
		panic(err)
	}
	raw, _ := json.Marshal(fr)
	return raw
}

// skipAfter is how many events a device gets on its connections before the
// skip-a-seq fault leaves a seq out of its numbering: counted per device
// while it is connected, not from the server's start, so that the monitor
// meets the gap however late it connects and however far a loaded
// machine's ticker falls behind.
const skipAfter = 10

// emit sends a durable notification to every device every 10 ms (note 3:
// online or not, each device numbers its own events).
func (f *fakeServer) emit(ctx context.Context) {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		f.mu.Lock()
		connected := map[string]bool{}
		for c := range f.conns {
			if c.device != "" {
				connected[c.device] = true
			}
		}
		for dev := range f.creds {
			f.seq[dev]++
			if connected[dev] {
				f.online[dev]++
				if f.fault == faultSkipSeq && f.online[dev] == skipAfter {
					f.seq[dev]++ // the planted fault: a seq is never sent
				}
			}
		}
		for c := range f.conns {
			if c.device == "" {
				continue
			}
			frame := mustFrame(f.seq[c.device], lmp.Notification{Category: lmp.CategoryResult, Title: "tick", Text: "t", Source: "fake"})
			select {
			case c.out <- frame:
			default:
			}
		}
		f.mu.Unlock()
	}
}

func (f *fakeServer) serveWS(w http.ResponseWriter, r *http.Request) {
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	ws.SetReadLimit(lmp.MaxFrameBytes)
	c := &fakeConn{ws: ws, out: make(chan []byte, 1024)}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case b := <-c.out:
				if ws.Write(ctx, websocket.MessageText, b) != nil {
					return
				}
			}
		}
	}()
	f.mu.Lock()
	f.conns[c] = true
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.conns, c)
		f.mu.Unlock()
	}()
	send := func(p lmp.Payload) {
		f.mu.Lock()
		seq := f.seq[c.device]
		f.mu.Unlock()
		c.out <- mustFrame(seq, p)
	}
	authed := func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return c.device != ""
	}
	fatal := func(code string, status websocket.StatusCode) {
		f.mu.Lock()
		seq := f.seq[c.device]
		f.mu.Unlock()
		ws.Write(ctx, websocket.MessageText, mustFrame(seq, lmp.Error{Code: code, Message: code, Fatal: true}))
		ws.Close(status, code)
	}
	for {
		typ, data, err := ws.Read(ctx)
		if err != nil {
			return
		}
		if typ == websocket.MessageBinary {
			fatal(lmp.CodeBinaryFrame, websocket.StatusUnsupportedData)
			return
		}
		var cf lmp.ClientFrame
		if json.Unmarshal(data, &cf) != nil || cf.Type == "" {
			if !authed() {
				fatal(lmp.CodeHelloRequired, websocket.StatusProtocolError)
				return
			}
			send(lmp.Error{Code: lmp.CodeBadFrame, Message: "bad frame"})
			continue
		}
		if !authed() {
			if cf.Type != lmp.TypeHello {
				fatal(lmp.CodeHelloRequired, websocket.StatusProtocolError)
				return
			}
			var h lmp.Hello
			json.Unmarshal(cf.Payload, &h)
			// Authenticate and queue hello.ok under the lock, so that no
			// event can be queued for the device before its hello.ok.
			f.mu.Lock()
			dev := ""
			var cred *string
			ok := false
			switch {
			case h.ProtocolVersion != 1:
			case h.Token != "" && h.DeviceID == "" && h.Credential == "" && f.tokens[h.Token]:
				delete(f.tokens, h.Token) // P-4
				dev, ok = "dev_"+secret()[:8], true
				s := secret()
				cred = &s
				f.creds[dev] = s
				f.issued = append(f.issued, s)
			case h.Token == "" && h.DeviceID != "" && f.creds[h.DeviceID] == h.Credential:
				dev, ok = h.DeviceID, true
			}
			if ok {
				c.out <- mustFrame(f.seq[dev], lmp.HelloOK{DeviceID: dev, Credential: cred, ServerName: "fake", ServerVersion: "1", ProtocolVersion: 1, ServerTime: 1})
				c.device = dev
			}
			f.mu.Unlock()
			if !ok {
				fatal(lmp.CodeInvalidCredential, websocket.StatusPolicyViolation)
				return
			}
			continue
		}
		switch cf.Type {
		case lmp.TypePing:
			send(lmp.Pong{})
		case lmp.TypeHello:
			send(lmp.Error{Code: lmp.CodeAlreadyAuthenticated, Message: "already authenticated"})
		case lmp.TypeRunCancel:
			if f.fault == faultCloseCancel {
				ws.Close(4999, "planted fault")
				return
			}
			send(lmp.Error{Code: lmp.CodeUnknownRun, Message: "no such run"})
		case lmp.TypeTaskList:
			msg := "no tasks"
			if f.fault == faultEchoSecret {
				f.mu.Lock()
				msg = "no tasks for credential " + f.creds[c.device] // the planted leak
				f.mu.Unlock()
			}
			send(lmp.Error{Code: lmp.CodeUnknownTask, Message: msg})
		default:
			send(lmp.Error{Code: lmp.CodeInvalidPayload, Message: "not handled"})
		}
	}
}
