package campaign

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// monitorTimings bound the monitor's patience.
type monitorTimings struct {
	ping      time.Duration // how often the monitor pings (T-6)
	silence   time.Duration // no frame at all for this long is a finding
	reconnect time.Duration // failing to reconnect for this long is a finding
}

var defaultMonitorTimings = monitorTimings{ping: 500 * time.Millisecond, silence: 5 * time.Second, reconnect: 10 * time.Second}

// monitor is a device the campaign never fuzzes. It stays connected and
// checks that events keep coming with strictly increasing seq and no gap
// (E-2, E-5); when the server drops it with a legitimate code it
// reconnects with last_seq and checks the gap is filled (or truncated, E-6).
type monitor struct {
	e   *engine
	dev client.Device
	t   monitorTimings

	lastSeq    atomic.Int64 // last durable seq received
	events     atomic.Int64
	reconnects atomic.Int64

	mu      sync.Mutex
	markers map[string]bool // notification titles seen
}

func (m *monitor) sawMarker(title string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.markers[title]
}

func (m *monitor) fail(kind, format string, args ...any) {
	m.e.report([]Finding{{Kind: kind, Rule: kindRule[kind], Message: m.e.secrets.redact(fmt.Sprintf(format, args...)), Episode: "monitor"}}, nil, false)
}

func (m *monitor) run(ctx context.Context, ready chan<- error) {
	baseline := true // the next durable seq sets the baseline
	first := true
	var lost time.Time
	for ctx.Err() == nil {
		var last *int64
		if !first {
			v := m.lastSeq.Load()
			last = &v
		}
		ws, truncated, err := m.connect(ctx, last)
		if err != nil {
			if first {
				ready <- err
				return
			}
			if lost.IsZero() {
				lost = time.Now()
			} else if time.Since(lost) > m.t.reconnect && ctx.Err() == nil {
				m.fail(KindMonitorLost, "the monitor device could not reconnect for %s: %v", m.t.reconnect, err)
				lost = time.Now()
			}
			select {
			case <-time.After(100 * time.Millisecond):
			case <-ctx.Done():
			}
			continue
		}
		lost = time.Time{}
		if first {
			ready <- nil
			first = false
		} else {
			m.reconnects.Add(1)
			// E-6: a gap older than the window is answered with truncated.
			baseline = baseline || truncated
		}
		baseline = m.session(ctx, ws, baseline)
	}
}

// connect dials and authenticates the monitor device (P-8).
func (m *monitor) connect(ctx context.Context, last *int64) (*websocket.Conn, bool, error) {
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(dctx, m.e.cfg.URL, &websocket.DialOptions{HTTPClient: m.e.cfg.HTTPClient})
	if err != nil {
		return nil, false, err
	}
	ws.SetReadLimit(64 << 20)
	h := lmp.Hello{ProtocolVersion: lmp.Version, DeviceID: m.dev.ID, Credential: m.dev.Credential, LastSeq: last,
		DeviceInfo: lmp.DeviceInfo{Model: "lmpkit-fuzz-monitor", OS: "go", AppVersion: "1"}}
	f, _ := lmp.NewClientFrame(h)
	if err := ws.Write(dctx, websocket.MessageText, encode(f)); err != nil {
		ws.CloseNow()
		return nil, false, err
	}
	for {
		_, data, err := ws.Read(dctx)
		if err != nil {
			ws.CloseNow()
			return nil, false, err
		}
		var wf wireFrame
		if decodeSmall(data, &wf) != nil {
			continue
		}
		switch wf.Type {
		case lmp.TypeHelloOK:
			var ok lmp.HelloOK
			_ = decodeSmall(wf.Payload, &ok)
			return ws, ok.Truncated, nil
		case lmp.TypeError:
			ws.CloseNow()
			return nil, false, errors.New("hello refused: " + m.e.secrets.redact(string(wf.Payload)))
		}
	}
}

// session reads one connection until it ends; it returns whether the next
// durable seq should set a new baseline.
func (m *monitor) session(ctx context.Context, ws *websocket.Conn, baseline bool) bool {
	o := m.e.newOracle(m.dev, Episode{MayAuth: true}, false)
	o.authed = true
	var lastFrame atomic.Int64
	lastFrame.Store(time.Now().UnixNano())
	done := make(chan struct{})
	var weClosed atomic.Bool
	rd := newMsgReader(ws)
	go func() {
		defer close(done)
		defer rd.release()
		for {
			typ, data, err := rd.read(context.Background())
			if err != nil {
				code := int(websocket.CloseStatus(err)) // -1 without a close frame
				o.closed(code, weClosed.Load() || ctx.Err() != nil)
				return
			}
			lastFrame.Store(time.Now().UnixNano())
			wf, ok := o.frame(data, typ == websocket.MessageBinary)
			if !ok {
				continue
			}
			switch {
			case wf.Type == lmp.TypePing:
				go func() {
					wctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					_ = ws.Write(wctx, websocket.MessageText, []byte(`{"v":1,"type":"pong","payload":{}}`))
					cancel()
				}()
			case lmp.IsDurable(wf.Type):
				m.events.Add(1)
				last := m.lastSeq.Load()
				switch {
				case baseline:
					baseline = false
				case wf.Seq <= last:
					m.fail(KindMonitorOrder, "monitor: %s seq %d after seq %d (E-2)", wf.Type, wf.Seq, last)
				case wf.Seq != last+1:
					m.fail(KindMonitorGap, "monitor: %s seq %d after seq %d: %d events lost (E-5)", wf.Type, wf.Seq, last, wf.Seq-last-1)
				}
				if wf.Seq > last || baseline {
					m.lastSeq.Store(wf.Seq)
				}
				if wf.Type == lmp.TypeNotification {
					var n lmp.Notification
					if decodeSmall(wf.Payload, &n) == nil && strings.HasPrefix(n.Title, markerPrefix) {
						m.mu.Lock()
						m.markers[n.Title] = true
						m.mu.Unlock()
					}
				}
			}
		}
	}()
	tick := time.NewTicker(m.t.ping)
	defer tick.Stop()
	silentReported := false
loop:
	for {
		select {
		case <-done:
			break loop
		case <-ctx.Done():
			break loop
		case <-tick.C:
			wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			_ = ws.Write(wctx, websocket.MessageText, []byte(`{"v":1,"type":"ping","payload":{}}`))
			cancel()
			quiet := time.Since(time.Unix(0, lastFrame.Load()))
			if quiet > m.t.silence && !silentReported {
				// T-6: the server answers a client ping with pong.
				m.fail(KindMonitorSilent, "monitor: no frame, not even a pong, for %s", quiet.Round(time.Millisecond))
				silentReported = true
			}
		}
	}
	weClosed.Store(true)
	_ = rd.close(websocket.StatusNormalClosure, m.e.timings.closing)
	<-done
	for i := range o.findings {
		o.findings[i].Episode = "monitor"
		o.findings[i].Message = "monitor: " + o.findings[i].Message
	}
	if len(o.findings) > 0 {
		m.e.report(o.findings, nil, false)
	}
	return baseline
}
