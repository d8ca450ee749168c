package mockhermes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/schema"
)

// maxDriverBody bounds a driver request body.
const maxDriverBody = 1 << 20

// driverSchemas names the schema of each route's request body.
var driverSchemas = map[string]string{
	driver.RouteHook:     "driver/hook-request",
	driver.RouteSend:     "driver/send-request",
	driver.RouteApproval: "driver/approval-request",
	driver.RoutePlay:     "driver/play-request",
	driver.RouteSession:  "driver/session-request",
	driver.RouteHold:     "driver/hold-request",
	driver.RouteRelease:  "driver/release-request",
}

// DriverHandler serves the driver API at driver.Prefix + route: full paths,
// so it can be mounted at the root of its own mux or listener. It reports p
// as the server's timing profile. It does not check the caller's address:
// the server mounts it behind its loopback-only guard.
func (m *Mock) DriverHandler(p driver.Profile) http.Handler {
	if p.Hermes == nil {
		p.Hermes = m.Profile()
	}
	d := &driverAPI{m: m, profile: p}
	mux := http.NewServeMux()
	// The logs (calls, hooks) are read with GET and cleared with DELETE.
	clearable := map[string]bool{driver.RouteCalls: true, driver.RouteHooks: true}
	route := func(r, method string, h func(http.ResponseWriter, *http.Request)) {
		mux.HandleFunc(driver.Prefix+r, func(w http.ResponseWriter, req *http.Request) {
			if req.Method != method && !(clearable[r] && req.Method == http.MethodDelete) {
				allow := method
				if clearable[r] {
					allow += ", " + http.MethodDelete
				}
				w.Header().Set("Allow", allow)
				writeErr(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s %s: method not allowed (use %s)", req.Method, r, allow))
				return
			}
			h(w, req)
		})
	}
	route(driver.RouteProfile, http.MethodGet, d.profileH)
	route(driver.RouteHook, http.MethodPost, d.hook)
	route(driver.RouteSend, http.MethodPost, d.send)
	route(driver.RouteApproval, http.MethodPost, d.approval)
	route(driver.RoutePlay, http.MethodPost, d.play)
	route(driver.RouteScenarios, http.MethodGet, d.scenarios)
	route(driver.RouteCalls, http.MethodGet, d.calls)
	route(driver.RouteHooks, http.MethodGet, d.hooks)
	route(driver.RouteSession, http.MethodPost, d.session)
	route(driver.RouteHold, http.MethodPost, d.hold)
	route(driver.RouteRelease, http.MethodPost, d.release)
	mux.HandleFunc("/", func(w http.ResponseWriter, req *http.Request) {
		writeErr(w, http.StatusNotFound, fmt.Sprintf("no driver route %s (routes live under %s)", req.URL.Path, driver.Prefix))
	})
	return mux
}

type driverAPI struct {
	m       *Mock
	profile driver.Profile
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeErr(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, driver.Error{Error: msg})
}

// decode reads a request body: JSON of the route's schema, no unknown
// fields, nothing after it. It answers 400 itself and reports false.
func decode(w http.ResponseWriter, r *http.Request, route string, v any) bool {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxDriverBody))
	if err != nil {
		writeErr(w, http.StatusBadRequest, fmt.Sprintf("%s: reading body: %v", route, err))
		return false
	}
	if errs := schema.ValidateDocument(driverSchemas[route], raw); len(errs) > 0 {
		msgs := make([]string, 0, len(errs))
		for _, e := range errs {
			msgs = append(msgs, e.String())
		}
		writeErr(w, http.StatusBadRequest, fmt.Sprintf("%s: invalid body: %s", route, strings.Join(msgs, "; ")))
		return false
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeErr(w, http.StatusBadRequest, fmt.Sprintf("%s: invalid body: %v", route, err))
		return false
	}
	if dec.More() {
		writeErr(w, http.StatusBadRequest, route+": invalid body: data after the JSON value")
		return false
	}
	return true
}

func (d *driverAPI) attached(w http.ResponseWriter) bool {
	if d.m.getAdapter() == nil {
		writeErr(w, http.StatusServiceUnavailable, "no server attached to the mock")
		return false
	}
	return true
}

func (d *driverAPI) profileH(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, d.profile)
}

func (d *driverAPI) hook(w http.ResponseWriter, r *http.Request) {
	var req driver.HookRequest
	if !decode(w, r, driver.RouteHook, &req) || !d.attached(w) {
		return
	}
	if req.Name == "" {
		writeErr(w, http.StatusBadRequest, "/hook: name is required")
		return
	}
	if req.Kwargs == nil {
		req.Kwargs = map[string]any{}
	}
	if err := hermes.CheckHook(req.Name, req.Kwargs); err != nil {
		writeErr(w, http.StatusBadRequest, "/hook: "+err.Error())
		return
	}
	d.m.hook(r.Context(), req.Name, req.Kwargs)
	writeJSON(w, http.StatusOK, driver.OK{OK: true})
}

func (d *driverAPI) send(w http.ResponseWriter, r *http.Request) {
	var req driver.SendRequest
	if !decode(w, r, driver.RouteSend, &req) || !d.attached(w) {
		return
	}
	res := d.m.getAdapter().Send(r.Context(), req.ChatID, req.Content, req.Metadata)
	writeJSON(w, http.StatusOK, driver.SendResponse{
		Success: res.Success, MessageID: res.MessageID, Error: res.Error, Retryable: res.Retryable,
	})
}

func (d *driverAPI) approval(w http.ResponseWriter, r *http.Request) {
	var req driver.ApprovalRequest
	if !decode(w, r, driver.RouteApproval, &req) || !d.attached(w) {
		return
	}
	if req.Command == "" {
		writeErr(w, http.StatusBadRequest, "/approval: command is required")
		return
	}
	if req.TimeoutMS < 0 {
		writeErr(w, http.StatusBadRequest, "/approval: timeout_ms must not be negative")
		return
	}
	if req.TaskID == "" {
		req.TaskID = d.m.newID("chat_")
	}
	spec := ApprovalSpec{
		ChatID: req.TaskID, RunID: req.RunID, TurnID: req.TurnID, ToolCallID: req.ToolCallID,
		Command: req.Command, Description: req.Description,
		AllowPermanent: req.AllowPermanent == nil || *req.AllowPermanent,
		AllowSession:   req.AllowSession == nil || *req.AllowSession,
		SmartDenied:    req.SmartDenied,
		Timeout:        time.Duration(req.TimeoutMS) * time.Millisecond,
	}
	if spec.Timeout == 0 && d.profile.ApprovalTimeoutMS > 0 {
		spec.Timeout = time.Duration(d.profile.ApprovalTimeoutMS) * time.Millisecond
	}
	// The wait outlives this request; it ends with the mock.
	ap, err := d.m.StartApproval(context.WithoutCancel(r.Context()), spec)
	if err != nil {
		writeErr(w, statusOf(err), "/approval: "+err.Error())
		return
	}
	d.m.goroutine(func() { ap.Wait(d.m.ctx) })
	writeJSON(w, http.StatusOK, driver.ApprovalResponse{ApprovalID: ap.ID(), TaskID: req.TaskID, SessionKey: ap.SessionKey()})
}

func statusOf(err error) int {
	switch {
	case errors.Is(err, ErrClosed), errors.Is(err, ErrNotAttached):
		return http.StatusServiceUnavailable
	}
	return http.StatusBadRequest
}

func (d *driverAPI) play(w http.ResponseWriter, r *http.Request) {
	var req driver.PlayRequest
	if !decode(w, r, driver.RoutePlay, &req) || !d.attached(w) {
		return
	}
	var o PlayOptions
	if req.Faults != nil {
		if req.Faults.DropEvery < 0 {
			writeErr(w, http.StatusBadRequest, "/play: faults.drop_every must not be negative")
			return
		}
		o.Faults = Faults{Reorder: req.Faults.Reorder, DropEvery: req.Faults.DropEvery, Duplicate: req.Faults.Duplicate, Interleave: req.Faults.Interleave}
	}
	pb, err := d.m.PlayWith(r.Context(), req.Scenario, req.Args, req.TaskID, o)
	if err != nil {
		writeErr(w, statusOf(err), "/play: "+err.Error())
		return
	}
	resp := driver.PlayResponse{TaskID: pb.TaskID, RunID: pb.RunID(), TurnID: pb.TurnID}
	if pb.TurnID != "" {
		resp.SessionID = d.m.SessionOf(pb.TaskID)
	}
	if req.Wait {
		if err := pb.Wait(r.Context()); err != nil {
			resp.Error = err.Error()
		}
	}
	writeJSON(w, http.StatusOK, resp)
}

func (d *driverAPI) scenarios(w http.ResponseWriter, r *http.Request) {
	list := driver.ScenarioList{Scenarios: []driver.Scenario{}}
	for _, sc := range d.m.Scenarios() {
		list.Scenarios = append(list.Scenarios, driver.Scenario{Name: sc.Name, Description: sc.Description, Usage: sc.Usage})
	}
	writeJSON(w, http.StatusOK, list)
}

func (d *driverAPI) calls(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodDelete {
		d.m.ClearCalls()
		writeJSON(w, http.StatusOK, driver.OK{OK: true})
		return
	}
	calls := d.m.Calls()
	if calls == nil {
		calls = []driver.Call{}
	}
	writeJSON(w, http.StatusOK, driver.CallList{Calls: calls})
}

func (d *driverAPI) hooks(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodDelete {
		d.m.ClearHooks()
		writeJSON(w, http.StatusOK, driver.OK{OK: true})
		return
	}
	writeJSON(w, http.StatusOK, driver.HookList{Hooks: d.m.Hooks()})
}

func (d *driverAPI) session(w http.ResponseWriter, r *http.Request) {
	var req driver.SessionRequest
	if !decode(w, r, driver.RouteSession, &req) {
		return
	}
	seed := SessionSeed{ID: req.TaskID, Source: req.Source, Title: req.Title, Model: req.Model, Preview: req.Preview, Ended: req.Ended,
		ParentSessionID: req.ParentSessionID}
	if req.SessionID != "" {
		// Link the session to chat task_id.
		if req.TaskID == "" {
			req.TaskID = d.m.newID("chat_")
		}
		seed.ChatID, seed.ID = req.TaskID, req.SessionID
	}
	id := d.m.SeedSession(seed)
	resp := driver.SessionResponse{TaskID: id}
	if req.SessionID != "" {
		resp.TaskID, resp.SessionID = req.TaskID, id
	}
	writeJSON(w, http.StatusOK, resp)
}

func (d *driverAPI) hold(w http.ResponseWriter, r *http.Request) {
	var req driver.HoldRequest
	if !decode(w, r, driver.RouteHold, &req) {
		return
	}
	id, err := d.m.Hold(req.Call, req.Args, time.Duration(req.TimeoutMS)*time.Millisecond)
	if err != nil {
		writeErr(w, http.StatusBadRequest, "/hold: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, driver.HoldResponse{HoldID: id})
}

func (d *driverAPI) release(w http.ResponseWriter, r *http.Request) {
	var req driver.ReleaseRequest
	if !decode(w, r, driver.RouteRelease, &req) {
		return
	}
	if err := d.m.Release(req.HoldID); err != nil {
		writeErr(w, http.StatusBadRequest, fmt.Sprintf("/release: hold_id %q: %v", req.HoldID, err))
		return
	}
	writeJSON(w, http.StatusOK, driver.OK{OK: true})
}

var _ hermes.Hermes = (*Mock)(nil)

// Profile says which Hermes behaviours the mock has on (GET /profile's
// hermes).
func (m *Mock) Profile() *driver.HermesProfile {
	f := m.opts.Faults
	return &driver.HermesProfile{
		TelemetrySchemaVersion: TelemetrySchemaVersion, Surface: Platform,
		StreamReasoningDeltas: m.opts.StreamReasoningDeltas, BusyInputMode: m.opts.BusyInputMode,
		Crosstalk: m.opts.Crosstalk, ApprovalPromptTimeoutMS: m.opts.PromptTimeout.Milliseconds(),
		MaxStreamPayloadBytes: MaxStreamPayload, StreamQueueSize: StreamQueueSize,
		Faults: driver.Faults{Reorder: f.Reorder, DropEvery: f.DropEvery, Duplicate: f.Duplicate, Interleave: f.Interleave},
	}
}
