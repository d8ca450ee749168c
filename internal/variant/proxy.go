package variant

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// Options configure Start.
type Options struct {
	// Upstream is the base URL of the lmp-server behind the proxy,
	// http://127.0.0.1:PORT.
	Upstream string
	// Addr is the listen address; default 127.0.0.1:0.
	Addr string
	// StateFile holds the seq numbering (required).
	StateFile string
	// Choices are the variant's answers to the open points of notes.md.
	Choices Choices
	// KeepNumbering passes the upstream's seq, event_id and a hello's
	// last_seq through unchanged: the variant then rewrites payloads only,
	// and the upstream's numbering, its faults included, reaches the
	// client as sent. The fault self-test puts the minimal variant in
	// front of a mutated server this way. It needs notes 2 and 6 answered
	// the preferred way (neither adds a frame or a number), and a proxy
	// that is not restarted (its own numbering is what survives a crash).
	KeepNumbering bool
}

// Proxy is a running variant.
type Proxy struct {
	upstream string // http://host:port
	upWS     string // ws://host:port/ws
	ln       net.Listener
	srv      *http.Server
	seq      *numbering
	choices  Choices
	keepSeq  bool

	ctx      context.Context
	cancel   context.CancelFunc
	sessions sync.WaitGroup
}

// Start listens and serves the variant in front of o.Upstream.
func Start(o Options) (*Proxy, error) {
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	if o.StateFile == "" {
		return nil, errors.New("variant: a state file is required")
	}
	if o.KeepNumbering && (o.Choices.On(2) || o.Choices.On(6)) {
		return nil, fmt.Errorf("variant: choices %s number frames of their own (notes 2, 6); the upstream's numbering cannot be kept", o.Choices)
	}
	seq, err := openNumbering(o.StateFile)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, err
	}
	up := strings.TrimSuffix(o.Upstream, "/")
	p := &Proxy{upstream: up, upWS: "ws" + strings.TrimPrefix(up, "http") + lmp.PathWebSocket, ln: ln, seq: seq, choices: o.Choices, keepSeq: o.KeepNumbering}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+lmp.PathWebSocket, p.serveWS)
	mux.HandleFunc("GET "+lmp.PathHealth, p.forward)
	mux.HandleFunc("POST "+lmp.PathPairNew, p.servePair)
	p.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// Addr is the address the proxy listens on.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// WSURL is the proxy's LMP WebSocket URL.
func (p *Proxy) WSURL() string { return "ws://" + p.Addr() + lmp.PathWebSocket }

// PairURL is the proxy's loopback pairing endpoint.
func (p *Proxy) PairURL() string { return "http://" + p.Addr() + lmp.PathPairNew }

// Close stops serving, ends every connection and writes the state file.
func (p *Proxy) Close(ctx context.Context) error {
	err := p.srv.Shutdown(ctx)
	p.cancel()
	p.sessions.Wait()
	return errors.Join(err, p.seq.Close())
}

// forward passes a request to the upstream unchanged, forwarding headers
// included (the upstream refuses them on its pairing endpoint, note 13).
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request) {
	status, header, body, err := p.roundTrip(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	writeResponse(w, status, header, body)
}

// servePair forwards a pairing request and puts the proxy's own URL in the
// pairing JSON (P-2).
func (p *Proxy) servePair(w http.ResponseWriter, r *http.Request) {
	if host, _, _ := net.SplitHostPort(r.RemoteAddr); !net.ParseIP(host).IsLoopback() {
		http.Error(w, `{"error":"loopback only"}`, http.StatusForbidden)
		return
	}
	status, header, body, err := p.roundTrip(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if m, ok := decode(body); ok && status == http.StatusOK {
		m["url"] = p.WSURL()
		body = encode(m)
	}
	writeResponse(w, status, header, body)
}

func (p *Proxy) roundTrip(r *http.Request) (int, http.Header, []byte, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	if err != nil {
		return 0, nil, nil, err
	}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, p.upstream+r.URL.Path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header = r.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("upstream: %w", err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, resp.Header, out, err
}

func writeResponse(w http.ResponseWriter, status int, header http.Header, body []byte) {
	if ct := header.Get("Content-Type"); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// serveWS joins a client connection to a new upstream connection.
func (p *Proxy) serveWS(w http.ResponseWriter, r *http.Request) {
	up, _, err := websocket.Dial(r.Context(), p.upWS, nil)
	if err != nil {
		http.Error(w, "upstream unavailable", http.StatusBadGateway)
		return
	}
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		up.CloseNow()
		return
	}
	c.SetReadLimit(lmp.MaxFrameBytes)
	up.SetReadLimit(16 << 20)
	s := &session{p: p, client: c, up: up}
	p.sessions.Add(1)
	defer p.sessions.Done()
	s.run()
}

// session is one client connection and its upstream connection.
type session struct {
	p          *Proxy
	client, up *websocket.Conn

	mu        sync.Mutex
	device    string // set by hello.ok
	connSeq   int64  // numbering before hello.ok
	truncated bool   // hello.ok must say truncated: true
	// note 8: whether the client sent anything since the upstream's last
	// ping, and whether the variant answered that ping itself (the
	// client's own pong is then not passed on).
	clientTraffic, answeredPing bool

	writeMu, upWriteMu sync.Mutex
}

func (s *session) run() {
	ctx, cancel := context.WithCancel(s.p.ctx)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.upstreamToClient(ctx)
		cancel()
	}()
	s.clientToUpstream(ctx)
	cancel()
	<-done
	s.client.CloseNow()
	s.up.CloseNow()
}

func (s *session) clientToUpstream(ctx context.Context) {
	for {
		typ, data, err := s.client.Read(ctx)
		if err != nil {
			if code := websocket.CloseStatus(err); code >= 0 {
				_ = s.up.Close(code, "")
			}
			return
		}
		c := s.p.choices
		if typ == websocket.MessageBinary && c.On(12) {
			// Reserved in v1: refused without closing (note 12).
			s.sendOwn(ctx, lmp.TypeError, object{"code": CodeBinaryUnsupported, "message": "binary frames are not used in LMP v1", "fatal": false})
			continue
		}
		var env struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(data, &env)
		s.mu.Lock()
		authenticated := s.device != ""
		// Traffic other than a pong (which answers its own ping), once
		// authenticated: the hello does not keep a silent device alive.
		s.clientTraffic = s.clientTraffic || authenticated && env.Type != lmp.TypePong
		swallow := env.Type == lmp.TypePong && s.answeredPing
		if swallow {
			s.answeredPing = false
		}
		s.mu.Unlock()
		if swallow {
			continue
		}
		if env.Type == lmp.TypeHello && authenticated && c.On(16) {
			// A second hello ends the connection (note 16).
			s.sendOwn(ctx, lmp.TypeError, object{"code": c.code(CodeSecondHello), "message": "this connection is authenticated already", "fatal": true})
			_ = s.client.Close(c.closeCode(lmp.CloseProtocolError), "second hello")
			return
		}
		if typ == websocket.MessageText {
			lastSeq := s.lastSeq
			if s.p.keepSeq {
				lastSeq = func(_ string, seq int64) int64 { return seq }
			}
			data = c.rewriteClientFrame(data, lastSeq)
		}
		if err := s.writeUp(ctx, typ, data); err != nil {
			return
		}
	}
}

// lastSeq translates a hello's last_seq (the device's numbering) for the
// upstream, and remembers when the gap can no longer be told.
func (s *session) lastSeq(device string, seq int64) int64 {
	up, truncate := s.p.seq.UpstreamLastSeq(device, seq)
	s.mu.Lock()
	s.truncated = truncate
	s.mu.Unlock()
	return up
}

func (s *session) upstreamToClient(ctx context.Context) {
	for {
		_, data, err := s.up.Read(ctx)
		if err != nil {
			if code := websocket.CloseStatus(err); code >= 0 {
				var ce websocket.CloseError
				errors.As(err, &ce)
				_ = s.client.Close(s.p.choices.closeCode(code), ce.Reason)
			}
			return
		}
		s.notePing(ctx, data)
		frames, err := s.rewriteServerFrame(data)
		if err != nil {
			_ = s.client.Close(websocket.StatusInternalError, "numbering failed")
			return
		}
		for _, f := range frames {
			if err := s.write(ctx, f); err != nil {
				return
			}
		}
	}
}

// notePing answers an upstream ping itself when the client sent anything
// since the last one and the variant counts any traffic as liveness
// (note 8); the ping still reaches the client, whose pong is then dropped.
func (s *session) notePing(ctx context.Context, data []byte) {
	if !s.p.choices.On(8) || !bytes.Contains(data, []byte(`"ping"`)) {
		return
	}
	m, ok := decode(data)
	if !ok || m["type"] != lmp.TypePing {
		return
	}
	s.mu.Lock()
	answer := s.clientTraffic && s.device != ""
	s.clientTraffic, s.answeredPing = false, answer
	s.mu.Unlock()
	if answer {
		pong, _ := json.Marshal(object{"v": lmp.Version, "type": lmp.TypePong, "payload": object{}})
		_ = s.writeUp(ctx, websocket.MessageText, pong)
	}
}

func (s *session) writeUp(ctx context.Context, typ websocket.MessageType, data []byte) error {
	s.upWriteMu.Lock()
	defer s.upWriteMu.Unlock()
	return s.up.Write(ctx, typ, data)
}

func (s *session) write(ctx context.Context, data []byte) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	return s.client.Write(ctx, websocket.MessageText, data)
}

// numbers gives a frame its seq: a durable event the numbers the device
// got for it (count of them), any other frame the device's next number;
// before hello.ok, the connection's own count.
func (s *session) numbers(typ string, upSeq int64, count int) ([]int64, error) {
	s.mu.Lock()
	device := s.device
	if device == "" && !s.p.choices.On(2) {
		s.mu.Unlock()
		return []int64{upSeq}, nil
	}
	if device == "" {
		s.connSeq++
		n := s.connSeq
		s.mu.Unlock()
		return []int64{n}, nil
	}
	s.mu.Unlock()
	if lmp.IsDurable(typ) {
		return s.p.seq.Durable(device, upSeq, count)
	}
	if !s.p.choices.On(2) {
		// A connection frame carries the device's current seq (note 2).
		return []int64{s.p.seq.Current(device)}, nil
	}
	n, err := s.p.seq.Next(device)
	return []int64{n}, err
}

// rewriteServerFrame translates one upstream frame into the frames the
// client gets: one, or a run.failed and its run.completed.
func (s *session) rewriteServerFrame(data []byte) ([][]byte, error) {
	m, ok := decode(data)
	if !ok {
		return [][]byte{data}, nil
	}
	typ, _ := m["type"].(string)
	p := payloadOf(m)
	if typ == lmp.TypeHelloOK && p != nil {
		s.mu.Lock()
		s.device, _ = p["device_id"].(string)
		if s.truncated {
			p["truncated"] = true
		}
		s.mu.Unlock()
	}
	count := 1
	if typ == lmp.TypeRunFailed && s.p.choices.On(6) {
		count = 2
	}
	if s.p.keepSeq {
		if p := payloadOf(m); p != nil {
			m["type"] = s.p.choices.rewritePayload(typ, m, p)
		}
		return [][]byte{encode(m)}, nil
	}
	upSeq, _ := integer(m["seq"])
	own, err := s.numbers(typ, upSeq, count)
	if err != nil {
		return nil, err
	}
	out := []object{m}
	if typ == lmp.TypeRunFailed && len(own) == 2 {
		out = append(out, failedCompletion(m))
	}
	frames := make([][]byte, len(out))
	for i, f := range out {
		if fp := payloadOf(f); fp != nil {
			f["type"] = s.p.choices.rewritePayload(f["type"].(string), f, fp)
		}
		f["seq"] = own[i]
		f["event_id"] = lmp.EventID(own[i])
		frames[i] = encode(f)
	}
	return frames, nil
}

// sendOwn sends a frame the proxy makes itself.
func (s *session) sendOwn(ctx context.Context, typ string, payload object) {
	own, err := s.numbers(typ, 0, 1)
	if err != nil {
		return
	}
	raw, _ := json.Marshal(object{
		"v": lmp.Version, "seq": own[0], "ts": float64(time.Now().UnixMicro()) / 1e6, "type": typ,
		"task_id": nil, "run_id": nil, "event_id": lmp.EventID(own[0]), "payload": payload,
	})
	_ = s.write(ctx, raw)
}
