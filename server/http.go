package server

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server/store"
)

// Paths of the device administration endpoints, loopback only.
const (
	PathDevices      = "/internal/devices"             // GET: DeviceList
	PathDeviceRevoke = "/internal/devices/{id}/revoke" // POST: DeviceStatus of the revoked device
)

// HTTPLimits are the limits of the HTTP server in front of Handler. They
// are set on purpose; net/http's zero values mean no timeout at all.
type HTTPLimits struct {
	// ReadHeaderTimeout bounds reading a request's headers, so that a
	// client trickling them (slowloris) cannot hold a connection.
	ReadHeaderTimeout time.Duration
	// IdleTimeout closes a keep-alive connection that waits this long for
	// its next request; without it 500 idle connections held 512 fds.
	// WebSockets are hijacked and unaffected: the heartbeat (T-4, T-5)
	// keeps them alive or ends them.
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds a request's header block (net/http allows
	// 4 KiB more); a larger one gets 431.
	MaxHeaderBytes int
}

// DefaultHTTPLimits are lmp-server's: ample for a phone, a proxy or a
// browser, tight for a client that holds connections open.
var DefaultHTTPLimits = HTTPLimits{
	ReadHeaderTimeout: 10 * time.Second,
	IdleTimeout:       60 * time.Second,
	MaxHeaderBytes:    16 << 10,
}

// NewHTTPServer returns an http.Server serving h within limits. No
// ReadTimeout or WriteTimeout: they would cut long-lived WebSockets.
func NewHTTPServer(h http.Handler, limits HTTPLimits) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: limits.ReadHeaderTimeout,
		IdleTimeout:       limits.IdleTimeout,
		MaxHeaderBytes:    limits.MaxHeaderBytes,
	}
}

// DeviceStatus is one device in GET /internal/devices. It never holds the
// credential or its hash.
type DeviceStatus struct {
	DeviceID   string   `json:"device_id"`
	Model      string   `json:"model"`
	OS         string   `json:"os"`
	AppVersion string   `json:"app_version"`
	CreatedAt  float64  `json:"created_at"`
	RevokedAt  *float64 `json:"revoked_at"`
	Online     int      `json:"online"` // open authenticated connections
}

// DeviceList is the body of GET /internal/devices.
type DeviceList struct {
	Devices []DeviceStatus `json:"devices"`
}

// Handler serves /ws, /health and the loopback-only /internal endpoints
// (pairing and devices). /ws and /internal/* answer only a Host that names
// a loopback address or the host of Config.PublicURL (hostAllowed: DNS
// rebinding); /health answers any, for proxies and probes.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+lmp.PathHealth, s.serveHealth)
	// Enforces T-1: the LMP WebSocket is served at /ws and nowhere else.
	mux.HandleFunc("GET "+lmp.PathWebSocket, s.serveWS)
	// Enforces P-1: tokens are minted only for loopback callers not relayed by a proxy.
	pair := s.LoopbackOnly(http.HandlerFunc(s.servePair))
	mux.Handle("POST "+lmp.PathPairNew, pair)
	mux.Handle("GET "+PathDevices, s.LoopbackOnly(http.HandlerFunc(s.serveDevices)))
	mux.Handle("POST "+PathDeviceRevoke, s.LoopbackOnly(http.HandlerFunc(s.serveRevoke)))
	return mux
}

var healthBody = []byte(`{"ok":true,"v":1}`)

// serveHealth answers exactly {"ok":true,"v":1} (T-2).
func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if reason := s.storeFailing(); reason != "" {
		// Not healthy: events cannot be made durable (storehealth.go).
		writeJSON(w, http.StatusServiceUnavailable, Health{OK: false, V: lmp.Version, Error: reason})
		return
	}
	// Enforces T-2: GET /health answers exactly {"ok":true,"v":1}, without auth.
	_, _ = w.Write(healthBody)
}

// Health is the body of GET /health when the server is not healthy; a
// healthy one answers exactly {"ok":true,"v":1} (T-2).
type Health struct {
	OK    bool   `json:"ok"`
	V     int    `json:"v"`
	Error string `json:"error,omitempty"` // why it is not healthy
}

// servePair mints a pairing token (P-1, P-2, P-5). The body is optional:
// {"ttl": seconds}.
func (s *Server) servePair(w http.ResponseWriter, r *http.Request) {
	var req lmp.PairRequest
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, lmp.HTTPError{Error: "read body: " + err.Error()})
		return
	}
	if len(strings.TrimSpace(string(body))) > 0 {
		if err := json.Unmarshal(body, &req); err != nil {
			writeJSON(w, http.StatusBadRequest, lmp.HTTPError{Error: `body must be {"ttl": seconds}: ` + err.Error()})
			return
		}
	}
	ttl := s.cfg.PairTTL
	switch {
	case req.TTL < 0:
		writeJSON(w, http.StatusBadRequest, lmp.HTTPError{Error: "ttl must be positive"})
		return
	case req.TTL > MaxPairTTL.Seconds():
		writeJSON(w, http.StatusBadRequest, lmp.HTTPError{Error: "ttl must be at most " + MaxPairTTL.String()})
		return
	case req.TTL > 0:
		ttl = time.Duration(req.TTL * float64(time.Second))
	}
	token, expires := s.tokens.mint(ttl, time.Now())
	s.log.Info("pairing token minted", "token", lmp.Fingerprint(token), "ttl", ttl.String())
	// Enforces P-2: the QR payload is {"v":1,"url","token","name","fp"}, fp empty without TLS.
	writeJSON(w, http.StatusOK, lmp.PairResponse{
		QRPayload: lmp.QRPayload{V: lmp.Version, URL: s.publicURL(r), Token: token, Name: s.cfg.Name, FP: s.cfg.TLSFingerprint},
		ExpiresAt: lmp.Timestamp(expires),
	})
}

// publicURL is Config.PublicURL, or the URL of /ws on the host the
// pairing request reached.
func (s *Server) publicURL(r *http.Request) string {
	if s.cfg.PublicURL != "" {
		return s.cfg.PublicURL
	}
	scheme := "ws://"
	if r.TLS != nil {
		scheme = "wss://"
	}
	return scheme + r.Host + lmp.PathWebSocket
}

func (s *Server) serveDevices(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, DeviceList{Devices: s.deviceList()})
}

// deviceList lists every paired device, oldest first.
func (s *Server) deviceList() []DeviceStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	online := make(map[string]int)
	for c := range s.live {
		if !c.dead.Load() {
			online[c.dev.rec.ID]++
		}
	}
	out := make([]DeviceStatus, 0, len(s.devices))
	for _, d := range s.devices {
		out = append(out, s.statusLocked(d, online[d.rec.ID]))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt < out[j].CreatedAt })
	return out
}

func (s *Server) statusLocked(d *device, online int) DeviceStatus {
	st := DeviceStatus{
		DeviceID: d.rec.ID, Model: d.rec.Model, OS: d.rec.OS, AppVersion: d.rec.AppVersion,
		CreatedAt: lmp.Timestamp(d.rec.CreatedAt), Online: online,
	}
	if d.rec.RevokedAt != nil {
		t := lmp.Timestamp(*d.rec.RevokedAt)
		st.RevokedAt = &t
	}
	return st
}

func (s *Server) serveRevoke(w http.ResponseWriter, r *http.Request) {
	st, err := s.revoke(r.PathValue("id"))
	switch {
	case errors.Is(err, store.ErrNotFound):
		writeJSON(w, http.StatusNotFound, lmp.HTTPError{Error: "no device " + r.PathValue("id")})
	case err != nil:
		writeJSON(w, http.StatusInternalServerError, lmp.HTTPError{Error: err.Error()})
	default:
		writeJSON(w, http.StatusOK, st)
	}
}

// revoke revokes a device in the store and closes its live connections at
// once (S-5): device_revoked, close 1008.
func (s *Server) revoke(id string) (DeviceStatus, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.devices[id]
	if !ok {
		return DeviceStatus{}, store.ErrNotFound
	}
	rec, err := s.store.Revoke(id, time.Now().UTC())
	if err != nil {
		return DeviceStatus{}, err
	}
	d.rec.RevokedAt = rec.RevokedAt
	d.revoked = true
	for c := range s.live {
		if c.dev == d {
			delete(s.live, c)
			c.fail(lmp.ClosePolicyViolation, lmp.CodeDeviceRevoked, "this device has been revoked")
		}
	}
	s.log.Info("device revoked", "device", id)
	return s.statusLocked(d, 0), nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
