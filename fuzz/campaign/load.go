package campaign

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// markerPrefix starts the title of every notification the campaign makes
// Hermes send, so that the monitor can tell them apart.
const markerPrefix = "lmpkit-fuzz-"

// load makes Hermes-side events flow through the driver API during the
// campaign: notifications the monitor must receive, approvals the workers
// may resolve, and races of several devices resolving one approval (M-2).
type load struct {
	e      *engine
	m      *monitor
	every  time.Duration
	sent   atomic.Int64
	raced  atomic.Int64
	wg     sync.WaitGroup
	deadln time.Duration // how long a marker may take to reach the monitor
}

func (l *load) post(ctx context.Context, route string, in, out any) error {
	body, _ := json.Marshal(in)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.e.cfg.DriverURL+route, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := l.e.cfg.HTTPClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("driver %s: HTTP %d: %.200s", route, resp.StatusCode, raw)
	}
	return json.Unmarshal(raw, out)
}

type marker struct {
	title string
	at    time.Time
}

func (l *load) run(ctx context.Context) {
	r := rand.New(rand.NewPCG(l.e.cfg.Seed, 0x10ad))
	tick := time.NewTicker(l.every)
	defer tick.Stop()
	var pending []marker
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			l.wg.Wait()
			return
		case <-tick.C:
		}
		// Markers the monitor should have seen by now.
		for len(pending) > 0 && time.Since(pending[0].at) > l.deadln {
			if !l.m.sawMarker(pending[0].title) {
				l.e.report([]Finding{{Kind: KindMonitorGap, Rule: "M-1", Episode: "monitor",
					Message: fmt.Sprintf("monitor: notification %s, sent through Hermes, never arrived (M-1)", pending[0].title)}}, nil, false)
			}
			pending = pending[1:]
		}
		if n%4 == 3 {
			var ar driver.ApprovalResponse
			req := driver.ApprovalRequest{Command: "rm -rf /tmp/fuzz-" + strconv.Itoa(n), Description: "fuzz", TimeoutMS: 1500}
			if err := l.post(ctx, driver.RouteApproval, req, &ar); err == nil {
				l.sent.Add(1)
				if r.IntN(2) == 0 && len(l.e.devices) >= 2 {
					k := 2 + r.IntN(min(3, len(l.e.devices)-1))
					l.wg.Go(func() { l.race(ctx, ar.ApprovalID, k) })
				}
			}
			continue
		}
		title := markerPrefix + strconv.Itoa(n)
		var sr driver.SendResponse
		req := driver.SendRequest{ChatID: "fuzz", Content: "marker " + title, Metadata: map[string]any{"title": title, "category": lmp.CategoryResult}}
		if err := l.post(ctx, driver.RouteSend, req, &sr); err == nil && sr.Success {
			l.sent.Add(1)
			pending = append(pending, marker{title, time.Now()})
		}
	}
}

// race has k different devices resolve one approval at the same moment:
// at most one of them may win (M-2, I-2).
func (l *load) race(ctx context.Context, approvalID string, k int) {
	l.raced.Add(1)
	type conn struct {
		ws  *websocket.Conn
		req string
	}
	var conns []conn
	defer func() {
		for _, c := range conns {
			c.ws.Close(websocket.StatusNormalClosure, "")
		}
	}()
	for i := range k {
		d := l.e.devices[i%len(l.e.devices)]
		dctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		ws, _, err := websocket.Dial(dctx, l.e.cfg.URL, &websocket.DialOptions{HTTPClient: l.e.cfg.HTTPClient})
		if err != nil {
			cancel()
			return
		}
		ws.SetReadLimit(64 << 20)
		f, _ := lmp.NewClientFrame(lmp.Hello{ProtocolVersion: lmp.Version, DeviceID: d.ID, Credential: d.Credential, DeviceInfo: lmp.DeviceInfo{Model: "race", OS: "go", AppVersion: "1"}})
		err = ws.Write(dctx, websocket.MessageText, encode(f))
		if err == nil {
			err = awaitType(dctx, ws, lmp.TypeHelloOK)
		}
		cancel()
		if err != nil {
			ws.CloseNow()
			return
		}
		conns = append(conns, conn{ws, "race_" + approvalID + "_" + strconv.Itoa(i)})
	}
	var wins atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, c := range conns {
		wg.Go(func() {
			f, _ := lmp.NewClientFrame(lmp.ApprovalResolve{ApprovalID: approvalID, Choice: lmp.Choices[i%len(lmp.Choices)], RequestID: c.req})
			<-start
			rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			defer cancel()
			if c.ws.Write(rctx, websocket.MessageText, encode(f)) != nil {
				return
			}
			for {
				_, data, err := c.ws.Read(rctx)
				if err != nil {
					return
				}
				var wf wireFrame
				if decodeSmall(data, &wf) != nil {
					continue
				}
				var p struct {
					RequestID string `json:"request_id"`
				}
				_ = decodeSmall(wf.Payload, &p)
				if p.RequestID != c.req {
					continue
				}
				if wf.Type == lmp.TypeAck {
					wins.Add(1)
				}
				return
			}
		})
	}
	close(start)
	wg.Wait()
	if w := wins.Load(); w > 1 {
		l.e.report([]Finding{{Kind: KindDoubleWin, Rule: kindRule[KindDoubleWin], Episode: "race",
			Message: fmt.Sprintf("approval %s: %d of %d devices that resolved it at once were acknowledged; first come, first served allows one (M-2)", approvalID, w, len(conns))}}, nil, false)
	}
}

// awaitType reads until a frame of type typ arrives.
func awaitType(ctx context.Context, ws *websocket.Conn, typ string) error {
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			return err
		}
		switch frameTypeOf(data) {
		case typ:
			return nil
		case lmp.TypeError:
			return fmt.Errorf("error frame while waiting for %s", typ)
		}
	}
}
