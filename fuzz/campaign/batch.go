package campaign

import (
	"context"
	"net"
	"net/http/httptrace"

	"github.com/loomi-lmp/lmpkit/internal/batchconn"
)

// dialFunc is the type of http.Transport.DialContext.
type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// batchDialer dials with dial and wraps each connection in a
// batchconn.Conn, so that an episode can send its steps together.
func batchDialer(dial dialFunc) dialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return batchconn.New(nc), nil
	}
}

// tracingConn returns a context for a dial with ctx and a function that
// tells, once the dial has returned, the batchconn.Conn the HTTP client
// used for it, new or reused; nil when the client's transport is not the
// campaign's own.
func tracingConn(ctx context.Context) (context.Context, func() *batchconn.Conn) {
	var got net.Conn
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) { got = info.Conn },
	})
	return ctx, func() *batchconn.Conn {
		bc, _ := got.(*batchconn.Conn)
		return bc
	}
}
