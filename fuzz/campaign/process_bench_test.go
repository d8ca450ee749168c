package campaign_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/fuzz/campaign"
	"github.com/loomi-lmp/lmpkit/internal/lmpservertest"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// BenchmarkCampaignProcess measures what `lmp-check fuzz --url …
// --driver-url …` sends against a separate lmp-server process, every
// oracle on (frames/s, reported as a metric; docs/performance.md records
// the figure). The server is built from this checkout and started with
// the mock Hermes; each iteration is a 10-second campaign with 8
// connections. Server and campaign share the machine's cores.
//
// Besides frames/s, which depends on what else runs on the machine, it
// reports the CPU time per frame sent of each process (server-cpu-us/frame,
// campaign-cpu-us/frame), which does not: the two together bound what 2
// dedicated cores can do, 2 s / (their sum) frames/s.
func BenchmarkCampaignProcess(b *testing.B) {
	addr, pid := startServerProcess(b)
	var frames int64
	var elapsed float64
	var srvCPU, selfCPU time.Duration
	for b.Loop() {
		srv0, self0 := processCPU(b, pid), processCPU(b, os.Getpid())
		rep, err := campaign.Run(context.Background(), campaign.Config{
			URL: "ws://" + addr + lmp.PathWebSocket, DriverURL: "http://" + addr + driver.Prefix,
			Duration: 10 * time.Second, Seed: 60, Conns: 8, ShrinkBudget: -1, OutDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		if !rep.OK {
			b.Fatalf("findings:\n%s", rep.Summary())
		}
		srv, self := processCPU(b, pid)-srv0, processCPU(b, os.Getpid())-self0
		b.Logf("%.0f frames/s; CPU per frame sent: server %.0f µs, campaign %.0f µs", rep.FramesPerSecond,
			float64(srv.Microseconds())/float64(rep.FramesSent), float64(self.Microseconds())/float64(rep.FramesSent))
		frames += rep.FramesSent
		elapsed += rep.ElapsedS
		srvCPU += srv
		selfCPU += self
	}
	// The server keeps its state from one iteration to the next, as in
	// one long campaign.
	b.ReportMetric(float64(frames)/elapsed, "frames/s")
	b.ReportMetric(float64(srvCPU.Microseconds())/float64(frames), "server-cpu-us/frame")
	b.ReportMetric(float64(selfCPU.Microseconds())/float64(frames), "campaign-cpu-us/frame")
}

// startServerProcess builds cmd/lmp-server, starts it on a free loopback
// port and waits for /health; the process is killed when b ends.
func startServerProcess(b *testing.B) (addr string, pid int) {
	b.Helper()
	addr, pid, _ = startServerBinary(b, buildServer(b))
	return addr, pid
}

// buildServer builds the checkout's cmd/lmp-server and returns the binary.
func buildServer(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "lmp-server")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/loomi-lmp/lmpkit/cmd/lmp-server").CombinedOutput(); err != nil {
		b.Fatalf("build lmp-server: %v\n%s", err, out)
	}
	return bin
}

// startServerBinary starts the lmp-server binary bin as
// startServerProcess does (lmpservertest.Serve); stop ends it before the
// benchmark does.
func startServerBinary(b *testing.B, bin string) (addr string, pid int, stop func()) {
	b.Helper()
	p := lmpservertest.Serve(b, bin, filepath.Join(b.TempDir(), "data"), lmpservertest.FreeAddr(b), "--no-qr", "--log-format", "json")
	return p.Addr, p.Cmd.Process.Pid, func() { p.Stop(b, time.Minute) }
}

// processCPU is the user and system CPU time a process has used so far,
// from /proc/<pid>/stat (Linux).
func processCPU(b *testing.B, pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Skipf("no per-process CPU time here: %v", err)
	}
	// The command name, in parentheses, may hold spaces: count fields
	// after it. utime and stime are fields 14 and 15 of the line.
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	const ticksPerSecond = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / ticksPerSecond
}
