package dashboard

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/mockhermes"
	"github.com/loomi-lmp/lmpkit/server"
)

//go:embed static
var static embed.FS

// Paths the dashboard serves.
const (
	PathPage      = "/"
	PathPrefix    = "/dashboard/"
	PathEvents    = "/dashboard/events"
	PathActivity  = "/dashboard/activity"
	PathPair      = "/dashboard/pair"
	PathApprovals = "/dashboard/approvals"
)

// ApprovalQueue is the gateway's approval queue as the dashboard sees it:
// the mock Hermes.
type ApprovalQueue interface {
	PendingApprovals() []mockhermes.PendingApproval
	ResolveLocally(requestID, choice string) bool
}

// Options configure a Dashboard.
type Options struct {
	// Pair mints a pairing token with the given lifetime (0: the server's
	// default), as the loopback pairing endpoint does. Required.
	Pair func(ctx context.Context, ttl time.Duration) (lmp.PairResponse, error)
	// Approvals is the gateway's approval queue. Required.
	Approvals ApprovalQueue
	// Logger receives the dashboard's logs; nil discards them.
	Logger *slog.Logger
}

// Dashboard serves the page and follows the server's frames: pass Observe
// as server.Config.Observer.
type Dashboard struct {
	o      Options
	frames *frameLog
	mux    *http.ServeMux
	closed chan struct{}
	once   sync.Once
}

// New returns a dashboard; serve its Handler behind the loopback guard.
func New(o Options) *Dashboard {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	d := &Dashboard{o: o, frames: newFrameLog(), mux: http.NewServeMux(), closed: make(chan struct{})}
	sub, _ := fs.Sub(static, "static")
	files := http.FileServerFS(sub)
	d.mux.HandleFunc("GET "+PathPage+"{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeFileFS(w, r, sub, "index.html")
	})
	d.mux.Handle("GET "+PathPrefix+"static/", http.StripPrefix(PathPrefix+"static/", files))
	d.mux.HandleFunc("GET "+PathEvents, d.serveEvents)
	d.mux.HandleFunc("GET "+PathActivity, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, d.frames.activity())
	})
	d.mux.HandleFunc("POST "+PathPair, d.servePair)
	d.mux.HandleFunc("GET "+PathApprovals, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"approvals": d.o.Approvals.PendingApprovals()})
	})
	d.mux.HandleFunc("POST "+PathApprovals+"/{id}", d.serveResolve)
	return d
}

// Observe records one frame for the log; it is a server.FrameObserver.
func (d *Dashboard) Observe(f server.ObservedFrame) { d.frames.observe(f) }

// Close ends the event streams of open pages, so that an HTTP server's
// Shutdown does not wait for them: register it with RegisterOnShutdown.
func (d *Dashboard) Close() { d.once.Do(func() { close(d.closed) }) }

// Handler serves the page and its routes. Serve it behind
// server.LoopbackOnly, which refuses requests from other sites (pages the
// user visits must not pair, revoke or answer approvals).
func (d *Dashboard) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; frame-ancestors 'none'")
		d.mux.ServeHTTP(w, r)
	})
}

// Pairing answers POST /dashboard/pair: the pairing endpoint's answer and
// its QR code.
type Pairing struct {
	lmp.PairResponse
	// QR is the QR payload's JSON (P-2), SVG the QR code of it.
	QR  string `json:"qr"`
	SVG string `json:"svg"`
}

func (d *Dashboard) servePair(w http.ResponseWriter, r *http.Request) {
	var req lmp.PairRequest
	if err := readJSON(r, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, lmp.HTTPError{Error: err.Error()})
		return
	}
	pr, err := d.o.Pair(r.Context(), time.Duration(req.TTL*float64(time.Second)))
	if err != nil {
		writeJSON(w, http.StatusBadGateway, lmp.HTTPError{Error: "mint a pairing token: " + err.Error()})
		return
	}
	qr, _ := json.Marshal(pr.QRPayload)
	svg, err := QRSVG(string(qr), "pairing QR code for "+pr.URL)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, lmp.HTTPError{Error: err.Error()})
		return
	}
	d.o.Logger.Info("pairing token minted for the dashboard", "token", lmp.Fingerprint(pr.Token))
	writeJSON(w, http.StatusOK, Pairing{PairResponse: pr, QR: string(qr), SVG: svg})
}

func (d *Dashboard) serveResolve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Choice string `json:"choice"`
	}
	if err := readJSON(r, &req); err != nil || req.Choice == "" {
		writeJSON(w, http.StatusBadRequest, lmp.HTTPError{Error: `body must be {"choice": "once"|"session"|"always"|"deny"}`})
		return
	}
	id := r.PathValue("id")
	if !d.o.Approvals.ResolveLocally(id, req.Choice) {
		writeJSON(w, http.StatusNotFound, lmp.HTTPError{Error: "no pending approval " + id})
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

// keepAlive is how often an idle event stream gets a comment line, so that
// a dead page is noticed and the browser's connection stays open.
const keepAlive = 15 * time.Second

// serveEvents streams the backlog of frames, then every new one, as
// server-sent events.
func (d *Dashboard) serveEvents(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	backlog, sub := d.frames.subscribe()
	defer d.frames.unsubscribe(sub)
	send := func(event string, v any) error {
		raw, _ := json.Marshal(v)
		id := ""
		if f, ok := v.(Frame); ok {
			id = "id: " + strconv.FormatInt(f.ID, 10) + "\n"
		}
		_, err := fmt.Fprintf(w, "%sevent: %s\ndata: %s\n\n", id, event, raw)
		return err
	}
	// A page that reconnects has the frames up to Last-Event-ID already,
	// unless the server restarted since (its numbering did too).
	seen, _ := strconv.ParseInt(r.Header.Get("Last-Event-ID"), 10, 64)
	if n := len(backlog); n > 0 && seen > backlog[n-1].ID {
		seen = 0
	}
	for _, f := range backlog {
		if f.ID <= seen {
			continue
		}
		if send("frame", f) != nil {
			return
		}
	}
	if _, err := io.WriteString(w, ": live\n\n"); err != nil || rc.Flush() != nil {
		return
	}
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		var err error
		select {
		case <-r.Context().Done():
			return
		case <-d.closed:
			return
		case e := <-sub.frames:
			f := d.frames.render(e)
			if n := d.frames.takeLost(sub); n > 0 {
				err = send("lost", n)
			}
			if err == nil {
				err = send("frame", f)
			}
		case <-tick.C:
			_, err = io.WriteString(w, ": keep-alive\n\n")
		}
		if err != nil || rc.Flush() != nil {
			return
		}
	}
}

func readJSON(r *http.Request, v any) error {
	raw, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	if err != nil {
		return err
	}
	if len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return errors.New("bad JSON body: " + err.Error())
	}
	return nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
