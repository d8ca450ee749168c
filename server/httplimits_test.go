package server_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/reference"
	"github.com/loomi-lmp/lmpkit/server"
)

// serveWithLimits serves h on a loopback listener with limits.
func serveWithLimits(t *testing.T, h http.Handler, limits server.HTTPLimits) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := server.NewHTTPServer(h, limits)
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return ln.Addr().String()
}

// waitServerClose reads conn until the server closes it; an error if it is
// still open after bound.
func waitServerClose(conn net.Conn, r *bufio.Reader, bound time.Duration) error {
	_ = conn.SetReadDeadline(time.Now().Add(bound))
	_, err := io.Copy(io.Discard, r)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return errors.New("the server kept the connection open")
	}
	return nil // EOF or reset: closed by the server
}

// TestIdleKeepAliveConnectionsAreClosed: after one GET /health a
// keep-alive connection used to stay open forever (500 of them held 512
// fds). The server closes it after IdleTimeout.
func TestIdleKeepAliveConnectionsAreClosed(t *testing.T) {
	e := newEnv(t)
	limits := server.DefaultHTTPLimits
	limits.IdleTimeout = 300 * time.Millisecond
	addr := serveWithLimits(t, e.srv.Handler(), limits)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /health HTTP/1.1\r\nHost: "+addr+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil || resp.StatusCode != 200 || resp.Close {
		t.Fatalf("health over keep-alive: %v %v", resp, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err := waitServerClose(conn, r, 20*time.Second); err != nil {
		t.Fatal(err)
	}
}

// TestSlowHeadersAreCutOff: a client trickling its headers is cut off after
// ReadHeaderTimeout.
func TestSlowHeadersAreCutOff(t *testing.T) {
	e := newEnv(t)
	limits := server.DefaultHTTPLimits
	limits.ReadHeaderTimeout = 300 * time.Millisecond
	addr := serveWithLimits(t, e.srv.Handler(), limits)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /health HTTP/1.1\r\nHost: "+addr+"\r\nX-Slow: "); err != nil {
		t.Fatal(err)
	}
	if err := waitServerClose(conn, bufio.NewReader(conn), 20*time.Second); err != nil {
		t.Fatal(err)
	}
}

// TestReferenceServerHTTPLimits: lmp-server serves with DefaultHTTPLimits:
// a 64 KiB header block is refused with 431 (net/http's default allows
// 1 MiB), and the limits are set, not left at "none".
func TestReferenceServerHTTPLimits(t *testing.T) {
	l := server.DefaultHTTPLimits
	if l.ReadHeaderTimeout <= 0 || l.IdleTimeout <= 0 || l.MaxHeaderBytes <= 0 || l.MaxHeaderBytes >= http.DefaultMaxHeaderBytes {
		t.Fatalf("DefaultHTTPLimits %+v: every limit must be set, headers below net/http's 1 MiB", l)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	inst, err := reference.Start(ctx, reference.Options{Addr: "127.0.0.1:0", DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close(context.Background())
	addr := strings.TrimPrefix(inst.BaseURL, "http://")
	code, _ := rawRequest(t, addr, "GET", lmp.PathHealth, addr, map[string]string{"X-Big": strings.Repeat("b", 64<<10)})
	if code != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("64 KiB of headers: %d, want 431", code)
	}
}
