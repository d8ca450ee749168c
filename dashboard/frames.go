package dashboard

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/loomi-lmp/lmpkit/internal/bounded"
	"github.com/loomi-lmp/lmpkit/internal/jsonscan"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server"
)

// Limits of what the dashboard keeps in memory.
const (
	keepFrames   = 2000     // the frame log's backlog
	maxFrameText = 16 << 10 // a frame's text is cut beyond this
	keepSecrets  = 512      // tokens and credentials remembered for redaction
	keepConns    = 4096     // connection → device mappings
	subscriberQ  = 1024     // frames queued per live page before it loses some
	backfillLook = 16       // how far back a newly known device is written into the log
)

// Frame is one frame of the log, secrets redacted.
type Frame struct {
	ID     int64   `json:"id"`
	At     float64 `json:"at"`
	Conn   uint64  `json:"conn"`
	Device string  `json:"device,omitempty"`
	// Dir is "in" for a frame from the phone, "out" for one to it.
	Dir    string `json:"dir"`
	Type   string `json:"type,omitempty"`
	TaskID string `json:"task_id,omitempty"`
	RunID  string `json:"run_id,omitempty"`
	Seq    *int64 `json:"seq,omitempty"`
	// Text is the frame's JSON with every token and credential replaced by
	// <redacted>:fingerprint (S-1).
	Text string `json:"text"`
}

// Activity is what the frames tell about a device.
type Activity struct {
	LastSeen float64  `json:"last_seen,omitempty"` // when it last sent a frame
	LastSeq  int64    `json:"last_seq"`            // the seq of the last frame sent to it
	Conns    []uint64 `json:"conns"`               // its connections, newest last
}

// frameLog keeps the recent frames, what they tell about each device, and
// the live pages that follow them.
//
// observe runs on the server's connection goroutines for every frame, so
// it does the least it can: one scan of the envelope (scanEnvelope), a
// copy of the bytes and a short critical section. Redaction and
// rendering wait until a page reads the frame (render), on the page's
// goroutine, with the secrets known by then: most frames are never read.
type frameLog struct {
	secrets secretSet

	mu      sync.Mutex
	nextID  int64
	ring    []entry // circular, at most keepFrames; ring[head] is the oldest once full
	head    int
	slab    []byte // where entries' bytes are copied to, a slabSize at a time
	types   map[string]string
	devices map[string]*Activity
	connDev *bounded.Map[uint64, string] // connection → device, the newest keepConns
	subs    map[*subscriber]struct{}
}

// slabSize is how much of frames' bytes one allocation holds.
const slabSize = 64 << 10

// entry is a frame as the log keeps it: indexed, not yet redacted.
type entry struct {
	id     int64
	at     float64
	conn   uint64
	device string
	sent   bool
	typ    string
	taskID string
	runID  string
	seq    int64
	hasSeq bool
	data   []byte // the frame's first maxFrameText bytes, never changed
	size   int    // the frame's length
}

type subscriber struct {
	frames chan entry
	lost   int // frames dropped because the page read too slowly; under frameLog.mu
}

func newFrameLog() *frameLog {
	l := &frameLog{types: map[string]string{}, devices: map[string]*Activity{}, connDev: bounded.New[uint64, string](keepConns), subs: map[*subscriber]struct{}{}}
	return l
}

// observe records one frame. It runs on the server's connection
// goroutines: it scans a frame the server read once, takes the envelope
// of one it wrote as the server gives it, and never blocks.
func (l *frameLog) observe(of server.ObservedFrame) {
	now := time.Now()
	e := entry{at: lmp.Timestamp(now), conn: of.Conn, sent: of.Sent, size: len(of.Data)}
	var typ, payload []byte // a scanned frame's; its type is interned under mu
	if w := of.Envelope; w.Type != "" {
		e.typ, e.seq, e.hasSeq, payload = w.Type, w.Seq, of.Sent, w.Payload
		e.taskID, e.runID = lmp.Deref(w.TaskID), lmp.Deref(w.RunID)
	} else {
		env := scanEnvelope(of.Data)
		typ, e.seq, e.hasSeq, payload = env.Type, env.Seq, env.HasSeq, env.Payload
		e.taskID, e.runID = string(env.TaskID), string(env.RunID)
	}
	var device string
	if e.typ == lmp.TypeHello || e.typ == lmp.TypeHelloOK || string(typ) == lmp.TypeHello || string(typ) == lmp.TypeHelloOK {
		device = l.learn(payload)
	}
	kept := of.Data[:min(len(of.Data), maxFrameText)]

	l.mu.Lock()
	defer l.mu.Unlock()
	if e.typ == "" {
		e.typ = l.intern(typ)
	}
	e.data = l.hold(kept)
	if device != "" {
		l.bind(of.Conn, device)
	}
	e.device, _ = l.connDev.Get(of.Conn)
	if a := l.devices[e.device]; a != nil {
		if of.Sent && e.hasSeq && e.seq > a.LastSeq {
			a.LastSeq = e.seq
		}
		if !of.Sent {
			a.LastSeen = e.at
		}
	}
	l.nextID++
	e.id = l.nextID
	if len(l.ring) < keepFrames {
		l.ring = append(l.ring, e)
	} else {
		l.ring[l.head] = e
		l.head = (l.head + 1) % keepFrames
	}
	for s := range l.subs {
		select {
		case s.frames <- e:
		default:
			s.lost++
		}
	}
}

// learn remembers the secrets of a hello or hello.ok payload and returns
// the device it names. Secrets are learned from every frame that carries
// them, read by a page or not, before the frame is published (S-1).
//
// It reads the payload's top-level members as encoding/json would decode
// them into a struct of token, credential and device_id (keys matched
// regardless of case, the last string of a repeated key naming the
// device), without decoding the rest: a hello may be padded to a megabyte.
// Every token and credential is remembered, not only the last, and so is
// one of a payload that turns out not to be JSON: redacting more is safe.
func (l *frameLog) learn(payload []byte) (device string) {
	for key, v := range members(payload) {
		if bytes.IndexByte(key, '\\') >= 0 {
			k, ok := jsonscan.Unquote(key)
			if !ok {
				continue
			}
			key = k
		}
		switch {
		case bytes.EqualFold(key, []byte("token")), bytes.EqualFold(key, []byte("credential")):
			if s := stringValue(v); s != nil {
				l.remember(string(s))
			}
		case bytes.EqualFold(key, []byte("device_id")):
			if s := stringValue(v); s != nil {
				device = string(s)
			}
		}
	}
	return device
}

// intern returns a frame type as a string shared by the frames of that
// type, so that indexing one allocates nothing. Under mu.
func (l *frameLog) intern(typ []byte) string {
	if s, ok := l.types[string(typ)]; ok {
		return s
	}
	s := string(typ)
	if len(l.types) < 64 {
		l.types[s] = s
	}
	return s
}

// hold copies b into the current slab. Under mu.
func (l *frameLog) hold(b []byte) []byte {
	if len(b) > cap(l.slab)-len(l.slab) {
		l.slab = make([]byte, 0, max(slabSize, len(b)))
	}
	n := len(l.slab)
	l.slab = append(l.slab, b...)
	return l.slab[n:len(l.slab):len(l.slab)]
}

// remember adds the secrets a token or credential holds to the redaction
// set, forgetting the oldest.
func (l *frameLog) remember(value string) {
	if value != "" {
		l.secrets.remember(value)
	}
}

// render returns a frame as a page shows it: every secret known by now
// replaced by <redacted>:fingerprint (S-1), cut to maxFrameText.
func (l *frameLog) render(e entry) Frame {
	secrets := &l.secrets
	f := Frame{ID: e.id, At: e.at, Conn: e.conn, Device: e.device, Dir: "in",
		Type: secrets.redactString(e.typ), TaskID: secrets.redactString(e.taskID), RunID: secrets.redactString(e.runID)}
	if e.sent {
		f.Dir = "out"
	}
	if e.hasSeq {
		seq := e.seq
		f.Seq = &seq
	}
	data := e.data
	if e.size > len(data) {
		// A secret may be cut at the end: drop the last run of URL-safe
		// base64, whatever it is.
		for len(data) > 0 && isBase64URL(data[len(data)-1]) {
			data = data[:len(data)-1]
		}
	}
	text := strings.ToValidUTF8(string(secrets.redact(data)), "\uFFFD")
	if e.size > len(e.data) || len(text) > maxFrameText {
		text = strings.ToValidUTF8(text[:min(len(text), maxFrameText)], "") + "… (" + strconv.Itoa(e.size) + " bytes)"
	}
	f.Text = text
	return f
}

// bind records that conn authenticated as device, and names the device on
// the connection's earlier frames (a pairing hello carries only a token).
func (l *frameLog) bind(conn uint64, device string) {
	if known, _ := l.connDev.Get(conn); known == device {
		return
	}
	l.connDev.Put(conn, device)
	a := l.devices[device]
	if a == nil {
		a = &Activity{}
		l.devices[device] = a
	}
	a.Conns = append(a.Conns, conn)
	if len(a.Conns) > 8 {
		a.Conns = a.Conns[len(a.Conns)-8:]
	}
	for back := 1; back <= min(backfillLook, len(l.ring)); back++ {
		e := &l.ring[(l.head-back+len(l.ring))%len(l.ring)]
		if e.conn == conn && e.device == "" {
			e.device = device
		}
	}
}

// subscribe returns the backlog, rendered, and subscribes a live page to
// what follows: the page renders each entry it receives.
func (l *frameLog) subscribe() ([]Frame, *subscriber) {
	s := &subscriber{frames: make(chan entry, subscriberQ)}
	l.mu.Lock()
	l.subs[s] = struct{}{}
	backlog := append(append(make([]entry, 0, len(l.ring)), l.ring[l.head:]...), l.ring[:l.head]...)
	l.mu.Unlock()
	frames := make([]Frame, len(backlog))
	for i, e := range backlog {
		frames[i] = l.render(e)
	}
	return frames, s
}

func (l *frameLog) unsubscribe(s *subscriber) {
	l.mu.Lock()
	delete(l.subs, s)
	l.mu.Unlock()
}

// takeLost returns and resets how many frames s missed.
func (l *frameLog) takeLost(s *subscriber) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := s.lost
	s.lost = 0
	return n
}

// activity returns a copy of what the frames told about each device.
func (l *frameLog) activity() map[string]Activity {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]Activity, len(l.devices))
	for id, a := range l.devices {
		c := *a
		c.Conns = append([]uint64{}, a.Conns...)
		out[id] = c
	}
	return out
}
