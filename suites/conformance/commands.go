package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/loomi-lmp/lmpkit/client"
)

// Target commands: shell commands through which lmp-check acts on a server
// it does not know (--list-cmd, --revoke-cmd, --restart-cmd, --crash-cmd),
// like --token-cmd.

// LabelRestart marks specs that restart or crash the server.
const LabelRestart = "restart"

// Restarts is a decorator for specs that restart or crash the server
// (Target.RestartCmd, Target.CrashCmd); they skip themselves without the
// command they need.
var Restarts = ginkgo.Label(LabelRestart)

// Stop is how a spec stops the server before it starts again.
type Stop string

// Ways to stop the server.
const (
	// Graceful is a clean stop (--restart-cmd).
	Graceful Stop = "restart"
	// Kill is kill -9 (--crash-cmd).
	Kill Stop = "crash"
)

// commandTimeout bounds one target command; healthTimeout bounds the wait
// for /health after a restart.
const (
	commandTimeout = 2 * time.Minute
	healthTimeout  = time.Minute
)

// ErrNoRevoke is returned by Revoke when the target has neither a revoke
// command nor the loopback revoke endpoint.
var ErrNoRevoke = errors.New("needs --revoke-cmd (or the loopback endpoint POST /internal/devices/{id}/revoke beside --pair-url)")

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// runCommand runs a target command with sh -c. Its error names the
// command's flag and exit status and quotes the end of its stderr.
func runCommand(ctx context.Context, flag, command string) error {
	return runCommandTo(ctx, io.Discard, flag, command)
}

// runCommandTo is runCommand with the command's stdout written to stdout.
func runCommandTo(ctx context.Context, stdout io.Writer, flag, command string) error {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 300 {
			msg = "…" + msg[len(msg)-300:]
		}
		if msg != "" {
			msg = ": " + msg
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("still running after %v", commandTimeout)
		}
		return fmt.Errorf("%s %q failed (%v)%s", flag, command, err, msg)
	}
	return nil
}

// Revoke revokes a device (S-5): through RevokeCmd, with {device_id}
// replaced by the quoted ID, else through the loopback endpoint POST
// /internal/devices/{id}/revoke beside PairURL. ErrNoRevoke means there is
// no way to revoke.
func (t *Target) Revoke(ctx context.Context, deviceID string) error {
	if t.RevokeCmd != "" {
		if err := runCommand(ctx, "--revoke-cmd", strings.ReplaceAll(t.RevokeCmd, "{device_id}", shellQuote(deviceID))); err != nil {
			return err
		}
		markRevoked(deviceID)
		return nil
	}
	if t.PairURL == "" {
		return ErrNoRevoke
	}
	u, err := url.Parse(t.PairURL)
	if err != nil {
		return err
	}
	u.Path, u.RawQuery = "/internal/devices/"+url.PathEscape(deviceID)+"/revoke", ""
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), nil)
	if err != nil {
		return err
	}
	resp, err := t.HTTPClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed:
		return fmt.Errorf("%w: POST %s answered HTTP %d", ErrNoRevoke, u, resp.StatusCode)
	case resp.StatusCode >= 300:
		return fmt.Errorf("POST %s answered HTTP %d", u, resp.StatusCode)
	}
	markRevoked(deviceID)
	return nil
}

// ErrNoList is returned by ListDevices when the target has no command that
// lists its devices.
var ErrNoList = errors.New("needs --list-cmd")

// maxListing bounds the output of a list command that ListDevices keeps.
const maxListing = 4 << 20

// ListDevices returns what the target prints as its list of paired
// devices (S-5: "devices can be listed"): the output of ListCmd, else of
// Target.ListFunc. The spec prescribes no format, so the specs only look
// for each device's device_id in it. ErrNoList means there is no way to
// list. The output may hold secrets of a careless server: a caller shows
// it only with the run's secrets redacted.
func (t *Target) ListDevices(ctx context.Context) (string, error) {
	if t.ListCmd != "" {
		var out bytes.Buffer
		if err := runCommandTo(ctx, &limitWriter{w: &out, n: maxListing}, "--list-cmd", t.ListCmd); err != nil {
			return "", err
		}
		return out.String(), nil
	}
	if t.ListFunc != nil {
		return t.ListFunc(ctx)
	}
	return "", ErrNoList
}

// CanList reports whether the target has a way to list its devices: a
// spec that needs ListDevices skips before it pairs anything without one.
func (t *Target) CanList() bool { return t.ListCmd != "" || t.ListFunc != nil }

// limitWriter keeps the first n bytes written to it and drops the rest.
type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if keep := min(len(p), l.n); keep > 0 {
		if _, err := l.w.Write(p[:keep]); err != nil {
			return 0, err
		}
		l.n -= keep
	}
	return len(p), nil
}

// stopCommand is the command that stops and starts the server.
func (t *Target) stopCommand(how Stop) (flag, command string) {
	if how == Kill {
		return "--crash-cmd", t.CrashCmd
	}
	return "--restart-cmd", t.RestartCmd
}

// inProcessRestart is what Restart runs for a graceful restart through
// Target.RestartFunc.
func (t *Target) inProcessRestart(how Stop) func(context.Context) error {
	if how == Graceful && t.RestartCmd == "" {
		return t.RestartFunc
	}
	return nil
}

// Restart stops the server (gracefully or with kill -9) and starts it
// again through the target command (or Target.RestartFunc), then waits
// until /health answers again. It skips the running spec when there is no
// way to. Every connection to the server ends: the probes are awaited
// first.
func Restart(ctx context.Context, how Stop) error {
	t := TargetOf(ctx)
	RequireStop(ctx, how)
	flag, command := t.stopCommand(how)
	AwaitProbes(ctx)
	start := time.Now()
	if restart := t.inProcessRestart(how); restart != nil {
		flag = "the in-process restart"
		if err := restart(ctx); err != nil {
			return fmt.Errorf("%s: %w", flag, err)
		}
	} else if err := runCommand(ctx, flag, command); err != nil {
		return err
	}
	if err := t.WaitHealthy(ctx, healthTimeout); err != nil {
		return fmt.Errorf("after %s: %w", flag, err)
	}
	ginkgo.AddReportEntry(string(how), fmt.Sprintf("%s took %v until /health answered", flag, time.Since(start).Round(time.Millisecond)))
	return nil
}

// RequireStop skips the running spec when the target has no way to stop
// the server as how says: a spec calls it before it does anything.
func RequireStop(ctx context.Context, how Stop) {
	t := TargetOf(ctx)
	if flag, command := t.stopCommand(how); command == "" && t.inProcessRestart(how) == nil {
		ginkgo.Skip("needs " + flag)
	}
}

// WaitHealthy polls GET /health until it answers 200 with {"ok":true},
// for at most limit.
func (t *Target) WaitHealthy(ctx context.Context, limit time.Duration) error {
	health, err := t.HealthURL()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		if last = client.CheckHealth(ctx, t.HTTPClient, health); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("GET %s did not answer {\"ok\":true} within %v: %v", health, limit, last)
		case <-tick.C:
		}
	}
}

// The devices the run paired, so that lmp-check can revoke them at the
// end (issue: a run must not leave a hundred devices in a developer's
// server).
var (
	devicesMu sync.Mutex
	paired    = map[string]bool{} // device ID → revoked
	order     []string
)

func recordPaired(deviceID string) {
	if deviceID == "" {
		return
	}
	devicesMu.Lock()
	defer devicesMu.Unlock()
	if _, ok := paired[deviceID]; !ok {
		paired[deviceID] = false
		order = append(order, deviceID)
	}
}

func markRevoked(deviceID string) {
	devicesMu.Lock()
	defer devicesMu.Unlock()
	if _, ok := paired[deviceID]; ok {
		paired[deviceID] = true
	}
}

// Cleanup is what RevokePaired did.
type Cleanup struct {
	Paired  int   // devices the run paired
	Revoked int   // revoked by the run, by specs or by the clean-up
	Left    int   // still paired
	Err     error // why some were left (nil when none were)
}

// RevokePaired revokes every device the run paired and no spec revoked,
// and says how many it had to leave.
func RevokePaired(ctx context.Context, t *Target) Cleanup {
	devicesMu.Lock()
	var todo []string
	for _, id := range order {
		if !paired[id] {
			todo = append(todo, id)
		}
	}
	c := Cleanup{Paired: len(order), Revoked: len(order) - len(todo)}
	devicesMu.Unlock()
	for i, id := range todo {
		err := t.Revoke(ctx, id)
		if err == nil {
			c.Revoked++
			continue
		}
		c.Left++
		c.Err = err
		if errors.Is(err, ErrNoRevoke) || ctx.Err() != nil {
			c.Left += len(todo) - i - 1 // no way to revoke the others either
			break
		}
	}
	return c
}
