package lmp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/schema"
)

var (
	at       = time.Date(2025, 9, 29, 5, 30, 56, 789e6, time.UTC)
	taskID   = lmp.Ref("task_a1b2c3d4")
	runID    = lmp.Ref("run_9f8e7d6c")
	lastSeq  = int64(10230)
	limit    = 5
	ended    = 1759120000.5
	credBack = "q0L9mY2nV7cX4bT1sR8pK5jH3gF6dE0aZwQyUuIiOo8"
)

// serverValues holds a populated value of every server payload.
var serverValues = map[string]lmp.Payload{
	lmp.TypeHelloOK: lmp.HelloOK{DeviceID: "dev_1", Credential: &credBack, ServerName: "h", ServerVersion: "0.1",
		ProtocolVersion: 1, ServerTime: lmp.Timestamp(at), Truncated: true, HomeChannel: lmp.Ref("loomi:dm:dev_1")},
	lmp.TypeError: lmp.Error{Code: lmp.CodeUnsupportedVersion, Message: "v2 unsupported", Fatal: true, RequestID: "req_1",
		SupportedVersions: lmp.SupportedVersions},
	lmp.TypeRunStarted: lmp.RunStarted{RunID: "run_1", TaskID: "task_1", SessionID: "task_1", Surface: "gateway",
		Model: "m", Provider: "p", StartedAt: lmp.Timestamp(at), Title: nil},
	lmp.TypeRunDelta:        lmp.RunDelta{RunID: "run_1", Text: "hi", Kind: lmp.DeltaKindReasoning, Iteration: 2},
	lmp.TypeRunInterim:      lmp.RunInterim{RunID: "run_1", Text: "thinking", AlreadyStreamed: true},
	lmp.TypeRunToolStarted:  lmp.RunToolStarted{RunID: "run_1", Iteration: 1, Tool: "terminal", Preview: "ls", Index: 0, CallID: "c1"},
	lmp.TypeRunToolFinished: lmp.RunToolFinished{RunID: "run_1", Iteration: 1, Tool: "terminal", OK: false, Index: 3, CallID: "c1", Duration: 0.25},
	lmp.TypeRunCompleted:    lmp.RunCompleted{RunID: "run_1", Status: lmp.RunStatusCancelled, Text: "", Error: nil, Finished: false},
	lmp.TypeRunFailed:       lmp.RunFailed{RunID: "run_1", Error: "boom", Status: lmp.RunStatusFailed},
	lmp.TypeApprovalRequired: lmp.ApprovalRequired{ApprovalID: "a1", RunID: runID, TaskID: nil, Command: "rm -rf /tmp/x",
		Description: "d", Choices: []lmp.ApprovalChoice{{Label: "Once", Choice: lmp.ChoiceOnce, Style: lmp.StylePrimary}, {Label: "Deny", Choice: lmp.ChoiceDeny, Style: lmp.StyleDanger}},
		SmartDenied: true, SessionKeyRef: "agent:main:loomi:dm:task_1", DeadlineTS: lmp.Timestamp(at.Add(lmp.DefaultApprovalTimeout))},
	lmp.TypeApprovalResolved: lmp.ApprovalResolved{ApprovalID: "a1", Choice: "timeout", DecidedBy: lmp.DecidedByTimeout},
	lmp.TypeNotification:     lmp.Notification{Category: lmp.CategoryDiagnostic, Title: "t", Text: "x", Source: "cron", RequiresAttention: true},
	lmp.TypeTaskListResult: lmp.TaskListResult{RequestID: "req_2", Tasks: []lmp.Task{
		{TaskID: "task_1", Title: lmp.Ref("t"), Status: lmp.TaskStatusLive, Source: "loomi", Model: nil, StartedAt: lmp.Timestamp(at), EndedAt: nil, MessageCount: 3, Preview: "p", LastActive: lmp.Timestamp(at)},
		{TaskID: "task_2", Status: lmp.TaskStatusEnded, EndedAt: &ended},
	}},
	lmp.TypeAck:  lmp.Ack{RequestID: "req_3", For: lmp.TypeApprovalResolve, TaskID: taskID, RunID: runID, ApprovalID: lmp.Ref("a1")},
	lmp.TypePing: lmp.Ping{},
	lmp.TypePong: lmp.Pong{},
}

// clientValues holds a populated value of every client payload.
var clientValues = map[string]lmp.Payload{
	lmp.TypeHello:           lmp.Hello{ProtocolVersion: 1, DeviceID: "dev_1", Credential: "secret", LastSeq: &lastSeq, DeviceInfo: lmp.DeviceInfo{Model: "Pixel", OS: "Android 16", AppVersion: "1.0"}},
	lmp.TypePing:            lmp.Ping{},
	lmp.TypePong:            lmp.Pong{},
	lmp.TypeSessionSend:     lmp.SessionSend{TaskID: taskID, Text: "hello", RequestID: "req_1"},
	lmp.TypeRunCancel:       lmp.RunCancel{RunID: "run_1"},
	lmp.TypeRunPause:        lmp.RunPause{RunID: "run_1"},
	lmp.TypeRunResume:       lmp.RunResume{RunID: "run_1"},
	lmp.TypeApprovalResolve: lmp.ApprovalResolve{ApprovalID: "a1", Choice: lmp.ChoiceAlways, Reason: "ok", RequestID: "req_2"},
	lmp.TypeTaskList:        lmp.TaskList{RequestID: "req_3", Limit: &limit, StatusFilter: lmp.StatusFilterEnded},
}

// Minimal values: every optional field left out.
var minimalClient = []lmp.Payload{
	lmp.Hello{ProtocolVersion: 1, Token: "pt_1", DeviceInfo: lmp.DeviceInfo{Model: "m", OS: "o", AppVersion: "a"}},
	lmp.SessionSend{Text: "new task", RequestID: "req_9"},
	lmp.ApprovalResolve{ApprovalID: "a1", Choice: lmp.ChoiceDeny, RequestID: "req_8"},
	lmp.TaskList{RequestID: "req_7"},
}

func TestEveryTypeHasAValue(t *testing.T) {
	for _, typ := range lmp.ServerTypes {
		if p, ok := serverValues[typ]; !ok || p.FrameType() != typ {
			t.Errorf("no server value for %s", typ)
		}
	}
	for _, typ := range lmp.ClientTypes {
		if p, ok := clientValues[typ]; !ok || p.FrameType() != typ {
			t.Errorf("no client value for %s", typ)
		}
	}
	if len(serverValues) != len(lmp.ServerTypes) || len(clientValues) != len(lmp.ClientTypes) {
		t.Errorf("value tables name types lmp does not list")
	}
}

// TestGoFramesValidate: whatever the Go types produce validates.
func TestGoFramesValidate(t *testing.T) {
	for typ, p := range serverValues {
		for _, ids := range [][2]*string{{nil, nil}, {taskID, runID}} {
			f, err := lmp.NewFrame(10231, at, ids[0], ids[1], p)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(f)
			if errs := schema.ValidateFrame(schema.ServerToClient, raw); errs != nil {
				t.Errorf("%s: %s\n%v", typ, raw, errs)
			}
		}
	}
	for typ, p := range clientValues {
		checkClient(t, typ, p)
	}
	for _, p := range minimalClient {
		checkClient(t, p.FrameType()+" (minimal)", p)
	}
}

func checkClient(t *testing.T, name string, p lmp.Payload) {
	t.Helper()
	f, err := lmp.NewClientFrame(p)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(f)
	if errs := schema.ValidateFrame(schema.ClientToServer, raw); errs != nil {
		t.Errorf("%s: %s\n%v", name, raw, errs)
	}
}

// TestSchemasRejectWhatGoGetsWrong: a zero value is not always a valid
// frame; the schema catches the values a sender must fill in.
func TestSchemasRejectBrokenGoValues(t *testing.T) {
	for _, tc := range []struct {
		p       lmp.Payload
		pointer string
	}{
		{lmp.RunDelta{RunID: "r", Kind: "markdown"}, "/payload/kind"},
		{lmp.RunFailed{RunID: "r", Error: "", Status: lmp.RunStatusFailed}, "/payload/error"},
		{lmp.RunFailed{RunID: "r", Error: "x"}, "/payload/status"},
		{lmp.TaskListResult{RequestID: "r"}, "/payload/tasks"}, // nil slice encodes as null
		{lmp.ApprovalRequired{ApprovalID: "a"}, "/payload/choices"},
	} {
		f, _ := lmp.NewFrame(1, at, nil, nil, tc.p)
		raw, _ := json.Marshal(f)
		errs := schema.ValidateFrame(schema.ServerToClient, raw)
		found := false
		for _, e := range errs {
			found = found || e.Pointer == tc.pointer
		}
		if !found {
			t.Errorf("%s %s: want an error at %s, got %v", tc.p.FrameType(), raw, tc.pointer, errs)
		}
	}
}

// TestValidExamplesRoundTrip: every valid example decodes into the Go
// types, and re-encodes to a frame that still validates and says the same
// thing.
func TestValidExamplesRoundTrip(t *testing.T) {
	for _, dir := range []schema.Direction{schema.ServerToClient, schema.ClientToServer} {
		paths, _ := filepath.Glob(filepath.Join("..", "schema", "examples", "valid", string(dir), "*.json"))
		if len(paths) == 0 {
			t.Fatalf("no %s examples", dir)
		}
		for _, p := range paths {
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.Base(p)
			var payload lmp.Payload
			var origPayload json.RawMessage
			var again []byte
			if dir == schema.ServerToClient {
				var f lmp.Frame
				if err := json.Unmarshal(raw, &f); err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				if payload, err = lmp.DecodeServerPayload(f); err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				if payload == nil { // unknown type (V-1): nothing to re-encode
					continue
				}
				nf, err := lmp.NewFrame(f.Seq, lmp.TimeOf(f.TS), f.TaskID, f.RunID, payload)
				if err != nil {
					t.Fatal(err)
				}
				origPayload = f.Payload
				again, _ = json.Marshal(nf)
			} else {
				var f lmp.ClientFrame
				if err := json.Unmarshal(raw, &f); err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				if payload, err = lmp.DecodeClientPayload(f); err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				if payload == nil {
					continue
				}
				nf, _ := lmp.NewClientFrame(payload)
				origPayload = f.Payload
				again, _ = json.Marshal(nf)
			}
			if errs := schema.ValidateFrame(dir, again); errs != nil {
				t.Errorf("%s re-encoded: %s\n%v", name, again, errs)
			}
			samePayload(t, name, origPayload, again)
		}
	}
}

// samePayload checks that re-encoding kept every field: each field the Go
// type writes has the example's value, and each example field the Go type
// dropped is an extension (x_*) or an explicit null.
func samePayload(t *testing.T, name string, orig json.RawMessage, frame []byte) {
	t.Helper()
	var a map[string]any
	var f struct {
		Payload map[string]any `json:"payload"`
	}
	_ = json.Unmarshal(orig, &a)
	_ = json.Unmarshal(frame, &f)
	b := f.Payload
	for k, v := range b {
		if av, ok := a[k]; ok && !reflect.DeepEqual(av, v) {
			t.Errorf("%s: payload field %s was %v, re-encoded as %v", name, k, av, v)
		} else if !ok {
			t.Errorf("%s: the Go type writes %s, which the example lacks", name, k)
		}
	}
	for k, v := range a {
		if _, ok := b[k]; !ok && !strings.HasPrefix(k, "x_") && v != nil {
			t.Errorf("%s: payload field %s was lost by the Go type", name, k)
		}
	}
}
