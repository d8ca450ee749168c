package campaign_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/loomi-lmp/lmpkit/fuzz/campaign"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// floorServer is the campaign's floor: a bare coder/websocket server that
// validates nothing. It answers the pairing endpoint and /health with fixed
// bodies, the first frame of each connection with a fixed hello.ok (a new
// device id each time, so that pairing succeeds), and echoes every later
// frame unchanged, as the same kind of message. Nothing is decoded.
type floorServer struct {
	devices atomic.Int64
	conns   atomic.Int64
	srv     *http.Server
	addr    string
	// onRead, if not nil, is told of every frame read: the connection's
	// number, counted from 1 in the order they were accepted, and the
	// frame. It runs on the connection's goroutine.
	onRead func(conn int64, data []byte)
}

func startFloorServer(b testing.TB, onRead func(conn int64, data []byte)) *floorServer {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	f := &floorServer{addr: ln.Addr().String(), onRead: onRead}
	mux := http.NewServeMux()
	mux.HandleFunc(lmp.PathHealth, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true,"v":1}`))
	})
	mux.HandleFunc(lmp.PathPairNew, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"v":1,"url":"ws://%s/ws","token":"pt_floorfloorfloor%d","name":"floor","fp":"","expires_at":4102444800}`, f.addr, f.devices.Add(1))
	})
	mux.HandleFunc(lmp.PathWebSocket, f.serveWS)
	f.srv = &http.Server{Handler: mux}
	go func() { _ = f.srv.Serve(ln) }()
	b.Cleanup(func() { _ = f.srv.Close() })
	return f
}

func (f *floorServer) serveWS(w http.ResponseWriter, r *http.Request) {
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer ws.CloseNow()
	ws.SetReadLimit(lmp.MaxFrameBytes)
	conn := f.conns.Add(1)
	ctx := context.Background()
	first := true
	for {
		typ, data, err := ws.Read(ctx)
		if err != nil {
			return
		}
		if f.onRead != nil {
			f.onRead(conn, data)
		}
		if first {
			first = false
			n := strconv.FormatInt(f.devices.Add(1), 10)
			data = []byte(`{"v":1,"seq":0,"ts":1759123456.789,"type":"hello.ok","task_id":null,"run_id":null,"event_id":"e_0",` +
				`"payload":{"device_id":"dev_floor` + n + `","credential":"cred_floorfloorfloor` + n + `","server_name":"floor",` +
				`"server_version":"floor","protocol_version":1,"server_time":1759123456.789,"truncated":false,"home_channel":null}}`)
			typ = websocket.MessageText
		}
		if ws.Write(ctx, typ, data) != nil {
			return
		}
	}
}

// BenchmarkCampaignFloor runs the same campaign (8 connections, seed 1, no
// driver API, every oracle on) against a separate lmp-server process and
// against floorServer, one after the other in each iteration, and reports
// lmp-server's frames/s divided by the floor's: how close a campaign
// against the real server comes to what the campaign itself can send. The
// floor's findings (it answers nothing as LMP does) are ignored; the
// lmp-server campaign must end with none.
//
// With LMP_BASELINE_SERVER set to an lmp-server binary built from another
// commit, each iteration also runs the campaign against that binary, and
// the benchmark reports the server CPU per client frame of the checkout's
// server divided by the baseline's, both measured in the same iteration.
// With LMP_BASELINE_CHECK set as well, to an lmp-check binary of that
// commit, each iteration also runs that commit's campaign against its
// server (lmp-check fuzz, same duration, seed and connections), and the
// benchmark reports the checkout's campaign frames/s against the checkout's
// server divided by the baseline pair's: what a user of each commit gets.
//
// Every campaign against a server process gets a process of its own,
// started for it: a server's cost per frame may grow with what it has
// served (an older commit's mock sorted every session of its life for
// each task.list), and a ratio between a fresh process and one that
// served the iterations before would measure their ages.
func BenchmarkCampaignFloor(b *testing.B) {
	bin := buildServer(b)
	floor := startFloorServer(b, nil)
	baseBin := os.Getenv("LMP_BASELINE_SERVER")
	run := func(addr string) *campaign.Report {
		rep, err := campaign.Run(context.Background(), campaign.Config{
			URL: "ws://" + addr + lmp.PathWebSocket, Duration: 10 * time.Second, Seed: 1, Conns: 8,
			ShrinkBudget: -1, OutDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		return rep
	}
	baseCheck := os.Getenv("LMP_BASELINE_CHECK")
	if baseCheck != "" && baseBin == "" {
		b.Fatal("LMP_BASELINE_CHECK needs LMP_BASELINE_SERVER")
	}
	var ratios, cpuRatios, fpsRatios []float64
	var lmpFPS, floorFPS, srvUS, baseUS float64
	for b.Loop() {
		addr, pid, stop := startServerBinary(b, bin)
		srv0 := processCPU(b, pid)
		rep := run(addr)
		srv := processCPU(b, pid) - srv0
		stop()
		if !rep.OK {
			b.Fatalf("findings against lmp-server:\n%s", rep.Summary())
		}
		fl := run(floor.addr)
		ratios = append(ratios, rep.FramesPerSecond/fl.FramesPerSecond)
		lmpFPS += rep.FramesPerSecond
		floorFPS += fl.FramesPerSecond
		us := float64(srv.Microseconds()) / float64(rep.FramesSent)
		srvUS += us
		line := fmt.Sprintf("lmp-server %.0f frames/s, floor %.0f frames/s (%.2f×); lmp-server CPU %.1f µs per client frame",
			rep.FramesPerSecond, fl.FramesPerSecond, ratios[len(ratios)-1], us)
		if baseBin != "" {
			baseAddr, basePID, stop := startServerBinary(b, baseBin)
			base0 := processCPU(b, basePID)
			brep := run(baseAddr)
			bus := float64((processCPU(b, basePID) - base0).Microseconds()) / float64(brep.FramesSent)
			stop()
			baseUS += bus
			cpuRatios = append(cpuRatios, us/bus)
			line += fmt.Sprintf("; baseline server %.0f frames/s, CPU %.1f µs per client frame (%.2f×)", brep.FramesPerSecond, bus, us/bus)
		}
		if baseCheck != "" {
			baseAddr, _, stop := startServerBinary(b, baseBin)
			fps := baselineCampaign(b, baseCheck, baseAddr)
			stop()
			fpsRatios = append(fpsRatios, rep.FramesPerSecond/fps)
			line += fmt.Sprintf("; baseline campaign against its server %.0f frames/s (this ÷ baseline %.2f×)", fps, rep.FramesPerSecond/fps)
		}
		b.Log(line)
	}
	n := float64(len(ratios))
	b.ReportMetric(lmpFPS/n, "lmp-frames/s")
	b.ReportMetric(floorFPS/n, "floor-frames/s")
	b.ReportMetric(median(ratios), "lmp/floor")
	b.ReportMetric(srvUS/n, "server-cpu-us/frame")
	if len(cpuRatios) > 0 {
		b.ReportMetric(baseUS/n, "baseline-cpu-us/frame")
		b.ReportMetric(median(cpuRatios), "cpu/baseline")
	}
	if len(fpsRatios) > 0 {
		b.ReportMetric(median(fpsRatios), "frames/baseline")
	}
}

// baselineCampaign runs another commit's lmp-check fuzz against addr with
// the benchmark's settings and returns its frames sent per second; it must
// end with no finding.
func baselineCampaign(b *testing.B, bin, addr string) float64 {
	b.Helper()
	report := filepath.Join(b.TempDir(), "report.json")
	cmd := exec.Command(bin, "fuzz", "--url", "ws://"+addr+lmp.PathWebSocket, "--duration", "10s",
		"--seed", "1", "--conns", "8", "--shrink-budget", "-1s", "--quiet", "--report", report, "--out", b.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("baseline campaign: %v\n%s", err, out)
	}
	raw, err := os.ReadFile(report)
	if err != nil {
		b.Fatal(err)
	}
	var rep struct {
		FramesPerSecond float64 `json:"frames_per_second"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil || rep.FramesPerSecond <= 0 {
		b.Fatalf("baseline campaign report: %v (%s)", err, raw)
	}
	return rep.FramesPerSecond
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	for i := range s { // insertion sort: a handful of values
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
