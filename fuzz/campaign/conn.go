package campaign

import (
	"bytes"
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// connTimings bound one episode's waits.
type connTimings struct {
	dial    time.Duration // dial and upgrade
	write   time.Duration // one frame
	settle  time.Duration // wait for the answer to the closing ping
	closing time.Duration // the close handshake
}

var campaignTimings = connTimings{dial: 5 * time.Second, write: 5 * time.Second, settle: 2 * time.Second, closing: 2 * time.Second}

// sentinel is the ping sent after an episode's steps: its pong says the
// server has read everything before it (T-6).
var sentinel = []byte(`{"v":1,"type":"ping","payload":{}}`)

// episodeResult is what one connection produced.
type episodeResult struct {
	sent, received int
	dialErr        error
	closeCode      int // -1: no close frame; 0: still open when we closed
}

// runEpisode plays ep on a fresh connection to wsURL, feeding every
// received frame to o. vals fills the placeholders; what it returns is
// written before the next call. drop ends the
// connection without a close handshake, as a phone losing its network.
func runEpisode(ctx context.Context, wsURL string, hc *http.Client, ep Episode, vals func([]byte) []byte, o *connOracle, t connTimings, drop bool) episodeResult {
	var res episodeResult
	dctx, cancel := context.WithTimeout(ctx, t.dial)
	dctx, dialed := tracingConn(dctx)
	ws, _, err := websocket.Dial(dctx, wsURL, &websocket.DialOptions{HTTPClient: hc})
	cancel()
	if err != nil {
		res.dialErr = err
		return res
	}
	// The steps and the sentinels are sent together where the transport
	// allows it (batchDialer); a wait between steps sends what came before.
	batch := dialed()
	hold := func() {
		if batch != nil {
			batch.Hold()
		}
	}
	// Held frames count as sent once they have left.
	heldFrames := 0
	release := func() bool {
		ok := batch == nil || batch.Release(time.Now().Add(t.write)) == nil
		if ok {
			res.sent += heldFrames
		}
		heldFrames = 0
		return ok
	}
	ws.SetReadLimit(64 << 20)

	var (
		weClosed atomic.Bool
		pongs    atomic.Int64             // pongs received on this connection
		pongSig  = make(chan struct{}, 1) // a pong arrived
		done     = make(chan struct{})
		mu       sync.Mutex // guards received
	)
	rd := newMsgReader(ws)
	go func() {
		defer close(done)
		defer rd.release()
		for {
			typ, data, err := rd.read(context.Background())
			if err != nil {
				code := int(websocket.CloseStatus(err)) // -1 without a close frame
				res.closeCode = code
				o.closed(code, weClosed.Load())
				return
			}
			mu.Lock()
			res.received++
			mu.Unlock()
			f, ok := o.frame(data, typ == websocket.MessageBinary)
			if typ == websocket.MessageText && len(data) < 200 {
				if !ok {
					f.Type = frameTypeOf(data) // a ping with a broken envelope is still answered
				}
				switch f.Type {
				case lmp.TypePing:
					// T-5: answer the server's heartbeat, off the read loop.
					go func() {
						wctx, cancel := context.WithTimeout(context.Background(), t.write)
						_ = ws.Write(wctx, websocket.MessageText, []byte(`{"v":1,"type":"pong","payload":{}}`))
						cancel()
					}()
				case lmp.TypePong:
					pongs.Add(1)
					select {
					case pongSig <- struct{}{}:
					default:
					}
				}
			}
		}
	}()

	open := true
	maybePings := 0 // steps the server may answer with a pong
	hold()
	for _, s := range ep.Steps {
		if ctx.Err() != nil {
			break
		}
		if s.Op == OpWait {
			if !release() {
				open = false
				break
			}
			select {
			case <-time.After(s.Wait):
			case <-ctx.Done():
			case <-done:
			}
			hold()
			continue
		}
		typ := websocket.MessageText
		if s.Op == OpBinary {
			typ = websocket.MessageBinary
		}
		data := vals(s.Data)
		if typ == websocket.MessageText && mayBePing(data) {
			maybePings++
		}
		if len(data) > lmp.MaxFrameBytes {
			o.oversized = true
		}
		wctx, cancel := context.WithTimeout(ctx, t.write)
		err := ws.Write(wctx, typ, data)
		cancel()
		if err != nil {
			open = false
			break
		}
		heldFrames++
	}
	if open && ctx.Err() == nil && !drop {
		// Wait until the server has read every step (T-6: it answers
		// frames in order). A pong cannot be told from another, and the
		// pong of an episode ping may still be on its way: with k steps
		// that may be answered by a pong, k+1 sentinels make the (k+1)th
		// pong one of theirs, whatever the server answered to the steps.
		want := int64(maybePings + 1)
		wctx, cancel := context.WithTimeout(ctx, t.write)
		for range want {
			if ws.Write(wctx, websocket.MessageText, sentinel) != nil {
				open = false
				break
			}
		}
		cancel()
		if !release() {
			open = false
		}
		settle := time.After(t.settle)
	wait:
		for open && pongs.Load() < want {
			select {
			case <-pongSig:
			case <-done:
				break wait
			case <-settle:
				break wait
			case <-ctx.Done():
				break wait
			}
		}
	}
	if !release() { // the steps of an episode that sends no sentinels
		open = false
	}
	select {
	case <-done:
		open = false // the server ended the connection, not us
	default:
	}
	if !open {
		// A write failed: the server closed or dropped the connection. Let
		// the reader see how, and judge it as the server's close.
		select {
		case <-done:
		case <-time.After(t.closing):
		}
		_ = ws.CloseNow()
		<-done
		return res
	}
	weClosed.Store(true)
	if drop {
		_ = ws.CloseNow()
	} else {
		_ = rd.close(websocket.StatusNormalClosure, t.closing)
	}
	<-done
	return res
}

// mayBePing reports whether a server could read data as a ping: its type
// decodes as one, or it names one in a form a lenient decoder might accept
// (any case, escapes). Counting too many only costs a sentinel.
//
// A frame whose type decodes as "ping" holds the word, in some case, or a
// \u escape: both are found by one scan, without decoding the frame.
func mayBePing(data []byte) bool {
	if bytes.Contains(data, []byte(lmp.TypePing)) || bytes.Contains(data, []byte(`\u`)) {
		return true
	}
	// Another case of the word holds an upper-case letter of it; most
	// frames, huge ones included, have none, and skip the byte-wise scan.
	for _, c := range []byte("PING") {
		if bytes.IndexByte(data, c) >= 0 {
			return containsFold(data, lmp.TypePing)
		}
	}
	return false
}

// containsFold reports whether data contains the lower-case ASCII word w,
// in any case, without allocating.
func containsFold(data []byte, w string) bool {
	for i := 0; i+len(w) <= len(data); i++ {
		j := 0
		for j < len(w) && data[i+j]|0x20 == w[j] {
			j++
		}
		if j == len(w) {
			return true
		}
	}
	return false
}

// frameTypeOf extracts "type" from a small frame without a full decode.
func frameTypeOf(data []byte) string {
	var f struct {
		Type string `json:"type"`
	}
	if decodeSmall(data, &f) != nil {
		return ""
	}
	return f.Type
}
