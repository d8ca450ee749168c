package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/server/store"
)

// Server is the reference LMP v1 server. Create it with New, serve
// Handler, and stop it with Shutdown. It implements Adapter, the surface
// Hermes calls.
type Server struct {
	cfg    Config
	log    *slog.Logger
	store  *store.Store
	hermes hermes.Hermes
	// publicHost is the host of cfg.PublicURL: besides loopback names, the
	// only Host /ws and /internal/* answer (hostAllowed).
	publicHost string

	tokens    *tokenTable
	runs      *runTable      // Hermes' turns as runs, their chats and sessions
	approvals *approvalTable // approvals shown to devices

	mu sync.Mutex
	// events is the shared replay buffer (E-5, note 3) and the source of
	// every connection's durable frames. Appending takes mu; connection
	// writers read it without a lock.
	events    *eventLog
	lease     seqLease           // persisted high-water mark of global indices (note 4)
	devices   map[string]*device // every paired device, by id
	conns     map[*conn]struct{} // every open WebSocket
	live      map[*conn]struct{} // authenticated connections that receive events
	closing   bool
	upgrading int            // admitted upgrades not yet in conns
	storeDown storeFailure   // the store refuses writes (storehealth.go)
	refused   refusedLog     // upgrades refused at Config.MaxConnections
	handlers  sync.WaitGroup // WebSocket handlers still running
}

var _ hermes.Adapter = (*Server)(nil)

// device is the in-memory state of a paired device.
type device struct {
	rec     store.Device // Base and CredentialHash never change
	revoked bool         // guarded by Server.mu
	idem    *idemWindow  // I-1: last RequestIDWindow results
}

// New opens the store in cfg.DataDir and returns a server ready to serve.
// It fails when the store is held by another process, naming its path.
func New(cfg Config) (*Server, error) {
	if err := cfg.applyDefaults(); err != nil {
		return nil, err
	}
	st, err := store.Open(cfg.DataDir, cfg.Logger)
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg: cfg, log: cfg.Logger, store: st, hermes: cfg.Hermes, publicHost: publicHostOf(cfg.PublicURL),
		tokens:  newTokenTable(),
		devices: make(map[string]*device),
		conns:   make(map[*conn]struct{}),
		live:    make(map[*conn]struct{}),
	}
	s.approvals = newApprovalTable(s.publish)
	s.runs = newRunTable(s.publish, s.approvals, cfg)
	if err := s.load(); err != nil {
		st.Close()
		return nil, err
	}
	return s, nil
}

// load restores devices and resumes global numbering above the persisted
// lease (note 4): after a crash some numbers below it may never have been
// used, which is fine; reusing one would not be. After a clean stop the
// replay buffer it saved is loaded back (savedreplay.go).
func (s *Server) load() error {
	devs, err := s.store.Devices()
	if err != nil {
		return fmt.Errorf("server: load devices: %w", err)
	}
	for _, d := range devs {
		s.devices[d.ID] = &device{rec: d, revoked: d.Revoked(), idem: newIdemWindow(s.cfg.RequestIDWindow)}
	}
	lease, err := s.store.SeqLease()
	if err != nil {
		return fmt.Errorf("server: load seq lease: %w", err)
	}
	s.events = newEventLog(s.cfg.ReplayWindow, lease)
	s.restoreReplay(lease)
	s.lease = seqLease{store: s.store, stored: lease, granted: lease}
	n, err := s.lease.persist(lease + seqLeaseBlock)
	s.lease.granted = n
	return err
}

// publish appends a durable event to the shared log and wakes every live
// connection's writer, which writes it from the log (M-1). It never blocks
// and does no per-connection work beyond that non-blocking wake-up: a
// connection that the new event leaves more than ReplayWindow events
// behind is closed as a slow consumer instead, and its missed events are
// served by its next hello (slow consumers).
func (s *Server) publish(typ string, taskID, runID *string, payload any) {
	ev, err := newEvent(typ, time.Now(), taskID, runID, payload)
	if err != nil {
		s.log.Error("event dropped: cannot encode it", "type", typ, "err", err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return
	}
	if err := s.reserveLocked(); err != nil {
		// Never hand out a number that a crash could make us reuse. The
		// devices have been told (storeFailedLocked); one line per outage.
		if s.storeDown.dropped++; s.storeDown.dropped == 1 {
			s.log.Warn("event dropped: the store refuses writes; further drops are counted until it recovers", "type", typ, "err", err)
		}
		return
	}
	s.events.add(ev)
	// Enforces M-1: every event goes to every live connection of every device.
	for c := range s.live {
		c.eventAdded(ev.g)
	}
}

// currentSeqLocked is the device's seq of the newest event (0 before any).
func (s *Server) currentSeqLocked(d *device) int64 {
	if cur := s.events.last - d.rec.Base; cur > 0 {
		return cur
	}
	return 0
}

// Shutdown closes every connection with 1001 (after a fatal shutting_down
// error), waits for their handlers until ctx ends, then saves the replay
// buffer, persists the exact seq high-water mark and closes the store: the
// next New on the same store serves gaps from before the stop (note 4). Call it after the HTTP server
// has stopped accepting connections.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return errors.New("server: already shut down")
	}
	s.closing = true
	for c := range s.conns {
		c.fail(lmp.CloseGoingAway, lmp.CodeShuttingDown, "server is shutting down")
	}
	s.mu.Unlock()

	done := make(chan struct{})
	go func() { s.handlers.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = fmt.Errorf("server: connections still open at shutdown: %w", ctx.Err())
	}

	s.mu.Lock()
	last := s.events.last
	held, _ := s.events.since(s.events.oldest() - 1)
	s.mu.Unlock()
	// The buffer first: a stop between the two leaves a buffer that does
	// not end at the mark, which the next start does not use.
	if serr := s.saveReplay(held); serr != nil && err == nil {
		err = serr
	}
	if perr := s.lease.finish(last); perr != nil && err == nil {
		err = perr
	}
	if cerr := s.store.Close(); cerr != nil && err == nil {
		err = cerr
	}
	return err
}
