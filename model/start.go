package model

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// DefaultAddr is where `lmp-check model` listens by default.
const DefaultAddr = "127.0.0.1:8788"

// Server is a Model serving on a listener of its own.
type Server struct {
	// URL is the base URL a client configures, "http://HOST:PORT/v1".
	URL string
	// Model is the model it serves.
	Model *Model

	srv  *http.Server
	done chan struct{}
	err  error
}

// Start serves a new Model(opts) on addr ("127.0.0.1:0" for any free
// port) until Close.
func Start(addr string, opts Options) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return Serve(ln, opts), nil
}

// Serve serves a new Model(opts) on ln until Close.
func Serve(ln net.Listener, opts Options) *Server {
	m := New(opts)
	s := &Server{URL: "http://" + ln.Addr().String() + "/v1", Model: m, done: make(chan struct{}),
		srv: &http.Server{Handler: m, ReadHeaderTimeout: 10 * time.Second}}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			s.err = err
		}
	}()
	return s
}

// Close stops the server: open streams (the long scenario's) are cut.
func (s *Server) Close() error {
	err := s.srv.Close()
	<-s.done
	return errors.Join(err, s.err)
}

// Shutdown stops the server gracefully: it waits for open requests until
// ctx ends, then cuts them.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if err != nil {
		_ = s.srv.Close()
	}
	<-s.done
	return errors.Join(err, s.err)
}
