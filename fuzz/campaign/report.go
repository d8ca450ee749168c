package campaign

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"
)

// Report is the JSON report of a campaign (schema/report/fuzz-report.json).
type Report struct {
	Format            string           `json:"format"` // ReportFormat
	Tool              string           `json:"tool"`
	URL               string           `json:"url"`
	Seed              uint64           `json:"seed"`
	Conns             int              `json:"conns"`
	Devices           int              `json:"devices"`
	DurationS         float64          `json:"duration_s"`
	ElapsedS          float64          `json:"elapsed_s"`
	StartedAt         string           `json:"started_at"`
	Episodes          int64            `json:"episodes"`
	EpisodesByKind    map[string]int64 `json:"episodes_by_kind"`
	FramesSent        int64            `json:"frames_sent"`
	FramesReceived    int64            `json:"frames_received"`
	FramesPerSecond   float64          `json:"frames_per_second"`
	DistinctResponses int              `json:"distinct_responses"`
	Responses         map[string]int64 `json:"responses"`
	Monitor           MonitorReport    `json:"monitor"`
	Health            HealthReport     `json:"health"`
	Driver            *DriverReport    `json:"driver,omitempty"`
	Findings          []Finding        `json:"findings"`
	DuplicateFindings int64            `json:"duplicate_findings"`
	OK                bool             `json:"ok"`
}

// ReportFormat names the report format.
const ReportFormat = "lmp-check-fuzz-report/v1"

// MonitorReport says what the monitor device saw.
type MonitorReport struct {
	Events     int64 `json:"events"`
	LastSeq    int64 `json:"last_seq"`
	Reconnects int64 `json:"reconnects"`
}

// HealthReport counts the /health checks.
type HealthReport struct {
	Checks   int64 `json:"checks"`
	Failures int64 `json:"failures"`
}

// DriverReport counts the Hermes-side events the campaign caused.
type DriverReport struct {
	Events int64 `json:"events"`
	Races  int64 `json:"races"`
}

// WriteJSON writes r, indented.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteFile writes r to path.
func (r *Report) WriteFile(path string) error { return writeFile(path, r.WriteJSON) }

// Summary is a one-paragraph human summary.
func (r *Report) Summary() string {
	s := fmt.Sprintf("fuzz %s: seed %d, %d conns, %.1fs: %d frames sent (%.0f/s), %d received, %d episodes, %d distinct responses, monitor saw %d events, %d findings",
		r.URL, r.Seed, r.Conns, r.ElapsedS, r.FramesSent, r.FramesPerSecond, r.FramesReceived, r.Episodes, r.DistinctResponses, r.Monitor.Events, len(r.Findings))
	for _, f := range r.Findings {
		s += fmt.Sprintf("\n  %s [%s] %s", f.ID, f.Rule, f.Message)
		if f.Reproducer != "" {
			s += fmt.Sprintf("\n    reproducer: %s (%d frames, shrunk %v)", f.Reproducer, f.Frames, f.Shrunk)
		}
	}
	return s
}

func (e *engine) buildReport(elapsed time.Duration, m *monitor, h *healthWatch, l *load) *Report {
	e.mu.Lock()
	defer e.mu.Unlock()
	r := &Report{
		Format: ReportFormat, Tool: "lmp-check fuzz", URL: e.cfg.URL, Seed: e.cfg.Seed, Conns: e.cfg.Conns, Devices: len(e.devices),
		DurationS: e.cfg.Duration.Seconds(), ElapsedS: elapsed.Seconds(), StartedAt: e.start.UTC().Format(time.RFC3339),
		Episodes: e.episodes.Load(), EpisodesByKind: map[string]int64{}, FramesSent: e.framesSent.Load(),
		FramesReceived: e.framesRecv.Load(), Responses: map[string]int64{}, Findings: []Finding{},
		DuplicateFindings: e.dupes,
	}
	for k, v := range e.byKind {
		r.EpisodesByKind[k] = v
	}
	for k, v := range e.responses {
		r.Responses[k] = v
	}
	r.DistinctResponses = len(r.Responses)
	if elapsed > 0 {
		r.FramesPerSecond = float64(r.FramesSent) / elapsed.Seconds()
	}
	if m != nil {
		r.Monitor = MonitorReport{Events: m.events.Load(), LastSeq: m.lastSeq.Load(), Reconnects: m.reconnects.Load()}
	}
	if h != nil {
		r.Health = HealthReport{Checks: h.checks.Load(), Failures: h.failed.Load()}
	}
	if l != nil {
		r.Driver = &DriverReport{Events: l.sent.Load(), Races: l.raced.Load()}
	}
	for _, f := range e.findings {
		r.Findings = append(r.Findings, f.Finding)
	}
	slices.SortFunc(r.Findings, func(a, b Finding) int { return cmpString(a.ID, b.ID) })
	r.OK = len(r.Findings) == 0
	return r
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
