package campaign

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/schema"
)

func schemasT(t testing.TB) *Schemas {
	t.Helper()
	s, err := EmbeddedSchemas()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// plausible fills placeholders with values of the right type.
var plausible = map[string]string{
	PhToken: "pt_x", PhDeviceID: "dev_x", PhCredential: "cred_x", PhOtherID: "dev_y",
	PhApproval: "appr_x", PhRunID: "run_x", PhTaskID: "task_x",
}

func TestValidFramesAreSchemaValid(t *testing.T) {
	s := schemasT(t)
	if !slices.Contains(s.Types(), "hello") || len(s.Types()) < 8 {
		t.Fatalf("client types from the schemas: %v", s.Types())
	}
	g := newGen(7, s)
	for i := range 2000 {
		var raw []byte
		if i%5 == 0 {
			raw = encode(g.frame("hello", g.hello([]int{helloDevice, helloToken, helloWrong}[i%3])))
		} else {
			raw = encode(g.validFrame())
		}
		raw = fill(nil, raw, plausible)
		if errs := schema.ValidateFrame(schema.ClientToServer, raw); len(errs) > 0 {
			t.Fatalf("generated valid frame is invalid: %s\n%s", errs[0], raw)
		}
	}
}

func TestMutationsBreakTheSchema(t *testing.T) {
	s := schemasT(t)
	g := newGen(11, s)
	for _, m := range []string{MutType, MutBroken, MutUTF8, MutOversize, MutDeep} {
		invalid := 0
		for range 50 {
			st := g.applyMutation(m, g.frame("run.cancel", map[string]any{"run_id": "run_1"}))
			if len(schema.ValidateFrame(schema.ClientToServer, fill(nil, st.Data, plausible))) > 0 {
				invalid++
			}
		}
		if invalid < 25 {
			t.Errorf("mutation %s left %d of 50 frames valid", m, 50-invalid)
		}
	}
}

func TestEpisodesAreAFunctionOfTheSeed(t *testing.T) {
	s := schemasT(t)
	a, b, c := newGen(42, s), newGen(42, s), newGen(43, s)
	same, differ := true, false
	for range 200 {
		ea, eb, ec := a.episode(), b.episode(), c.episode()
		ja, _ := json.Marshal(ea)
		jb, _ := json.Marshal(eb)
		jc, _ := json.Marshal(ec)
		same = same && bytes.Equal(ja, jb)
		differ = differ || !bytes.Equal(ja, jc)
	}
	if !same || !differ {
		t.Fatalf("same seed same episodes: %v; other seed other episodes: %v", same, differ)
	}
}

func TestStepRoundTripKeepsEveryByte(t *testing.T) {
	in := Episode{Kind: "x", MayAuth: true, Drop: true, Steps: []Step{
		{Op: OpText, Data: []byte(`{"v":1}`)},
		{Op: OpText, Data: []byte("\xff\xc0\xaf")},
		{Op: OpBinary, Data: []byte{0, 1, 2}},
		{Op: OpWait, Wait: 25 * time.Millisecond},
	}}
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out Episode
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	for i := range in.Steps {
		if !bytes.Equal(in.Steps[i].Data, out.Steps[i].Data) || in.Steps[i].Op != out.Steps[i].Op || in.Steps[i].Wait != out.Steps[i].Wait {
			t.Fatalf("step %d: %+v became %+v", i, in.Steps[i], out.Steps[i])
		}
	}
	if !out.Drop || !out.MayAuth {
		t.Fatalf("flags lost: %+v", out)
	}
}

func TestSecretSetFindsAndRedacts(t *testing.T) {
	s := newSecretSet()
	s.add("abcdefghijklmnop", "dev_1")
	s.add("short", "x") // too short to be told from ordinary text
	if got := s.find([]byte(`{"m":"xxabcdefghijklmnopyy short"}`)); len(got) != 1 {
		t.Fatalf("find = %v", got)
	}
	if r := s.redact("key abcdefghijklmnop"); strings.Contains(r, "abcdefghijklmnop") || !strings.Contains(r, "<redacted>:") {
		t.Fatalf("redact = %q", r)
	}
}

// campaignOn runs a short campaign against url and returns its report.
func campaignOn(t *testing.T, url string, dur time.Duration, out string) *Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Config{URL: url, Duration: dur, Seed: 1, Conns: 3, OutDir: out, ShrinkBudget: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestCleanServerHasNoFindings(t *testing.T) {
	f := newFakeServer(t, faultNone)
	rep := campaignOn(t, f.url(), 2*time.Second, t.TempDir())
	if !rep.OK || len(rep.Findings) > 0 {
		t.Fatalf("findings against a correct server:\n%s", rep.Summary())
	}
	if rep.FramesSent < 100 || rep.Monitor.Events < 10 || rep.Health.Checks < 2 || rep.DistinctResponses < 5 {
		t.Fatalf("campaign did too little:\n%s", rep.Summary())
	}
}

// TestPlantedFaultsAreFoundAndReplay plants a broken handler in the fake
// server, runs a campaign, and checks that the finding is reported, saved
// as a reproducer that replays against the broken server and not against
// a correct one.
func TestPlantedFaultsAreFoundAndReplay(t *testing.T) {
	for _, tc := range []struct {
		fault, kind string
		maxFrames   int // the shrunk reproducer's size; 0: not shrunk
	}{
		{faultCloseCancel, KindCloseCode, 2},
		{faultEchoSecret, KindSecretLeak, 2},
		{faultSkipSeq, KindMonitorGap, 0},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			broken := newFakeServer(t, tc.fault)
			dir := t.TempDir()
			rep := campaignOn(t, broken.url(), 2*time.Second, dir)
			var f *Finding
			for i := range rep.Findings {
				if rep.Findings[i].Kind == tc.kind {
					f = &rep.Findings[i]
				}
			}
			if f == nil {
				t.Fatalf("no %s finding:\n%s", tc.kind, rep.Summary())
			}
			if tc.maxFrames == 0 {
				return // a finding of the whole server: no one connection to replay
			}
			if f.Reproducer == "" || !f.Shrunk || f.Frames > tc.maxFrames {
				t.Fatalf("reproducer %q: shrunk %v to %d frames, want at most %d:\n%s", f.Reproducer, f.Shrunk, f.Frames, tc.maxFrames, rep.Summary())
			}
			raw, err := os.ReadFile(f.Reproducer)
			if err != nil {
				t.Fatal(err)
			}
			if filepath.Dir(f.Reproducer) != dir {
				t.Fatalf("reproducer %s not in %s", f.Reproducer, dir)
			}
			for _, s := range broken.secrets() {
				if bytes.Contains(raw, []byte(s)) {
					t.Fatalf("reproducer holds a secret (S-1):\n%s", raw)
				}
			}
			r, err := LoadReproducer(f.Reproducer)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			again := newFakeServer(t, tc.fault)
			res, err := Replay(ctx, ReplayConfig{URL: again.url()}, r)
			if err != nil || !res.Reproduced {
				t.Fatalf("replay against the broken server: %+v, %v", res, err)
			}
			fixed := newFakeServer(t, faultNone)
			res, err = Replay(ctx, ReplayConfig{URL: fixed.url()}, r)
			if err != nil || res.Reproduced || len(res.Findings) > 0 {
				t.Fatalf("replay against a correct server: %+v, %v", res, err)
			}
		})
	}
}
