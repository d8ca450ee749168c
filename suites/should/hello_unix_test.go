//go:build unix

package should

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/internal/childtest"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
)

// helloChildEnv makes the test binary the checker of TestHelloAfterAStall.
const helloChildEnv = "LMP_SHOULD_HELLO_CHILD"

// TestHelloAfterAStall plays the failure a loaded machine causes: the
// checker's process stalls after it sent its hello, and the server's auth
// timer fires before its reader takes the hello (S-4). Connect must then
// connect once more and succeed; without a stall the same refusal must
// fail Connect at once, after one connection.
//
// The checker runs in a child process with a server of its own, as
// lmp-check runs with its in-process server. The server answers the first
// hello only when the test has let it, after it stopped the child with
// SIGSTOP (or not) and continued it; every later hello gets hello.ok.
func TestHelloAfterAStall(t *testing.T) {
	if os.Getenv(helloChildEnv) != "" {
		helloChild()
		return
	}
	for _, tc := range []struct {
		name  string
		stall time.Duration
		want  string
	}{
		{"stalled", 1200 * time.Millisecond, "connected after 2 connections"},
		{"not stalled", 0, "refused after 1 connection"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			child := childtest.Start(t, "TestHelloAfterAStall", helloChildEnv)
			cmd, out := child.Cmd, child.Stdout
			if !out.Scan() || out.Text() != "hello 1" {
				t.Fatalf("the child's server got no hello: %q %v", out.Text(), out.Err())
			}
			if tc.stall > 0 {
				if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
					t.Fatal(err)
				}
				time.Sleep(tc.stall) // the stall under test, not a wait for something
				if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := fmt.Fprintln(child.Stdin, "answer"); err != nil {
				t.Fatal(err)
			}
			var said string
			for out.Scan() {
				if l := out.Text(); strings.HasPrefix(l, "connected") || strings.HasPrefix(l, "refused") {
					said = l
				}
			}
			if !strings.HasPrefix(said, tc.want) {
				t.Errorf("the child said %q, want %q", said, tc.want)
			}
		})
	}
}

// helloChild is the checker: Connect against a server whose auth timer,
// 1 s long, fires on the first connection when the parent says so.
func helloChild() {
	var conns atomic.Int32
	stdin := bufio.NewReader(os.Stdin)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer func() { _ = ws.CloseNow() }()
		ctx := r.Context()
		if _, _, err := ws.Read(ctx); err != nil {
			return
		}
		if conns.Add(1) == 1 {
			fmt.Println("hello 1")
			_, _ = stdin.ReadString('\n')
			_ = ws.Write(ctx, websocket.MessageText, []byte(`{"v":1,"seq":0,"ts":1796279283.0,"type":"error","task_id":null,"run_id":null,"event_id":"e_0","payload":{"code":"auth_timeout","message":"no successful hello within 1s","fatal":true}}`))
			_ = ws.Close(websocket.StatusPolicyViolation, "auth_timeout")
			return
		}
		_ = ws.Write(ctx, websocket.MessageText, []byte(`{"v":1,"seq":0,"ts":1796279283.0,"type":"hello.ok","task_id":null,"run_id":null,"event_id":"e_0","payload":{"device_id":"dev_1","server_name":"s","server_version":"1","protocol_version":1,"server_time":1796279283.0,"truncated":false,"home_channel":null}}`))
		_, _, _ = ws.Read(ctx)
	}))
	defer srv.Close()
	target := &conformance.Target{WSURL: "ws" + strings.TrimPrefix(srv.URL, "http"), Profile: lmp.Profile{AuthTimeout: time.Second}}
	ctx, cancel := context.WithTimeout(conformance.WithTarget(context.Background(), target), time.Minute)
	defer cancel()
	c, err := Connect(ctx, "device", client.Device{ID: "dev_1", Credential: "secret"}, nil)
	switch {
	case err == nil:
		fmt.Printf("connected after %d connections\n", conns.Load())
		_ = c.Close()
	default:
		fmt.Printf("refused after %d connection: %v\n", conns.Load(), err)
	}
}
