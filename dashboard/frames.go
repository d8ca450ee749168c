package dashboard

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"

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
type frameLog struct {
	mu       sync.Mutex
	nextID   int64
	ring     []Frame // oldest first, at most keepFrames
	devices  map[string]*Activity
	connDev  map[uint64]string
	connFIFO []uint64
	secrets  []string
	subs     map[*subscriber]struct{}
}

type subscriber struct {
	frames chan Frame
	lost   int // frames dropped because the page read too slowly; under frameLog.mu
}

func newFrameLog() *frameLog {
	return &frameLog{devices: map[string]*Activity{}, connDev: map[uint64]string{}, subs: map[*subscriber]struct{}{}}
}

// envelope is the part of a frame the log indexes.
type envelope struct {
	Type    string          `json:"type"`
	Seq     *int64          `json:"seq"`
	TaskID  *string         `json:"task_id"`
	RunID   *string         `json:"run_id"`
	Payload json.RawMessage `json:"payload"`
}

type identity struct {
	DeviceID   string `json:"device_id"`
	Token      string `json:"token"`
	Credential string `json:"credential"`
}

// observe records one frame. It runs on the server's connection
// goroutines: it parses the frame once and never blocks.
func (l *frameLog) observe(of server.ObservedFrame) {
	now := time.Now()
	var env envelope
	_ = json.Unmarshal(of.Data, &env) // a malformed frame is shown as it came
	var id identity
	if env.Type == lmp.TypeHello || env.Type == lmp.TypeHelloOK {
		_ = json.Unmarshal(env.Payload, &id)
	}
	f := Frame{At: lmp.Timestamp(now), Conn: of.Conn, Dir: "in", Type: env.Type, Seq: env.Seq}
	if of.Sent {
		f.Dir = "out"
	}
	if env.TaskID != nil {
		f.TaskID = *env.TaskID
	}
	if env.RunID != nil {
		f.RunID = *env.RunID
	}

	l.mu.Lock()
	defer l.mu.Unlock()
	l.remember(id.Token)
	l.remember(id.Credential)
	f.Text = l.redact(of.Data)
	if id.DeviceID != "" {
		l.bind(of.Conn, id.DeviceID)
	}
	f.Device = l.connDev[of.Conn]
	if a := l.devices[f.Device]; a != nil {
		if of.Sent && env.Seq != nil && *env.Seq > a.LastSeq {
			a.LastSeq = *env.Seq
		}
		if !of.Sent {
			a.LastSeen = f.At
		}
	}
	l.nextID++
	f.ID = l.nextID
	if len(l.ring) >= keepFrames {
		l.ring = append(l.ring[:0], l.ring[len(l.ring)-keepFrames/2:]...)
	}
	l.ring = append(l.ring, f)
	for s := range l.subs {
		select {
		case s.frames <- f:
		default:
			s.lost++
		}
	}
}

// remember adds a secret to the redaction set, forgetting the oldest.
func (l *frameLog) remember(secret string) {
	if secret == "" {
		return
	}
	for _, s := range l.secrets {
		if s == secret {
			return
		}
	}
	if len(l.secrets) >= keepSecrets {
		l.secrets = l.secrets[1:]
	}
	l.secrets = append(l.secrets, secret)
}

// redact renders a frame with every remembered secret replaced, cut to
// maxFrameText.
func (l *frameLog) redact(data []byte) string {
	for _, s := range l.secrets {
		if bytes.Contains(data, []byte(s)) {
			data = bytes.ReplaceAll(data, []byte(s), []byte(lmp.Redacted+":"+lmp.Fingerprint(s)))
		}
	}
	text := strings.ToValidUTF8(string(data), "\uFFFD")
	if len(text) > maxFrameText {
		text = strings.ToValidUTF8(text[:maxFrameText], "") + "… (" + strconv.Itoa(len(data)) + " bytes)"
	}
	return text
}

// bind records that conn authenticated as device, and names the device on
// the connection's earlier frames (a pairing hello carries only a token).
func (l *frameLog) bind(conn uint64, device string) {
	if l.connDev[conn] == device {
		return
	}
	if _, known := l.connDev[conn]; !known {
		l.connFIFO = append(l.connFIFO, conn)
		if len(l.connFIFO) > keepConns {
			delete(l.connDev, l.connFIFO[0])
			l.connFIFO = l.connFIFO[1:]
		}
	}
	l.connDev[conn] = device
	a := l.devices[device]
	if a == nil {
		a = &Activity{}
		l.devices[device] = a
	}
	a.Conns = append(a.Conns, conn)
	if len(a.Conns) > 8 {
		a.Conns = a.Conns[len(a.Conns)-8:]
	}
	for i := len(l.ring) - 1; i >= 0 && i >= len(l.ring)-backfillLook; i-- {
		if l.ring[i].Conn == conn && l.ring[i].Device == "" {
			l.ring[i].Device = device
		}
	}
}

// snapshot returns the backlog and subscribes a live page to what follows.
func (l *frameLog) subscribe() ([]Frame, *subscriber) {
	s := &subscriber{frames: make(chan Frame, subscriberQ)}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.subs[s] = struct{}{}
	return append([]Frame(nil), l.ring...), s
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
