package server

import (
	"fmt"
	"slices"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/schema"
)

// validateClientFrame checks an authenticated connection's frame against
// the client → server shapes of §4 (F-2) and returns "" when it is valid,
// or a message naming the problem. Unknown types pass (V-1): they are
// ignored later. Unknown fields are allowed everywhere (V-1).
//
// The JSON Schemas of package schema decide first (F-2): r.Errs are
// ValidateFrame's errors for the frame. Decoding with the lmp types then
// checks what dispatch relies on. r's payload must still be valid.
var validateClientFrame = func(r *schema.Request) string {
	f := r.Frame
	// Enforces F-2: a client frame is checked against its §4 schema before dispatch (hello first: handleHello).
	if len(r.Errs) > 0 {
		return r.Errs[0].String() // never quotes values, so no secret leaks (S-1)
	}
	if f.V != lmp.Version {
		return fmt.Sprintf("envelope v is %d, want %d", f.V, lmp.Version)
	}
	if len(f.Payload) == 0 || f.Payload[0] != '{' {
		return "payload must be a JSON object"
	}
	p, err := r.Payload()
	if err != nil {
		return err.Error()
	}
	return checkRequired(p)
}

// checkRequired names the first required field that is missing or empty.
func checkRequired(p lmp.Payload) string {
	missing := func(field string) string { return p.FrameType() + ": " + field + " is required" }
	switch v := p.(type) {
	case lmp.SessionSend:
		if v.RequestID == "" {
			return missing("request_id")
		}
		if v.Text == "" {
			return missing("text")
		}
	case lmp.RunCancel:
		if v.RunID == "" {
			return missing("run_id")
		}
	case lmp.RunPause:
		if v.RunID == "" {
			return missing("run_id")
		}
	case lmp.RunResume:
		if v.RunID == "" {
			return missing("run_id")
		}
	case lmp.ApprovalResolve:
		if v.RequestID == "" {
			return missing("request_id")
		}
		if v.ApprovalID == "" {
			return missing("approval_id")
		}
		if !slices.Contains(lmp.Choices, v.Choice) { // F-8
			return fmt.Sprintf("approval.resolve: choice %q is not one of once, session, always, deny", v.Choice)
		}
	case lmp.TaskList:
		if v.RequestID == "" {
			return missing("request_id")
		}
		if v.Limit != nil && *v.Limit < 1 {
			return "task.list: limit must be at least 1"
		}
		switch v.StatusFilter {
		case "", lmp.StatusFilterLive, lmp.StatusFilterEnded, lmp.StatusFilterAll:
		default:
			return fmt.Sprintf("task.list: status_filter %q is not live, ended or all", v.StatusFilter)
		}
	}
	return ""
}

// helloPayload decodes r's payload as a hello, as
// lmp.DecodePayload[lmp.Hello](lmp.TypeHello, payload) does: off the tree
// when ReadRequest decoded it there, with encoding/json otherwise.
func helloPayload(r *schema.Request) (lmp.Hello, error) {
	if len(r.Frame.Payload) > 0 && r.Frame.Type == lmp.TypeHello {
		if p, err := r.Payload(); err == nil {
			return p.(lmp.Hello), nil
		}
	}
	return lmp.DecodePayload[lmp.Hello](lmp.TypeHello, r.Frame.Payload)
}

// decodeHello decodes a hello payload strictly enough to authenticate, and
// refuses device_info holding control characters and strings over their limits (lmp/limits.go, the maxLengths of
// schema/c2s/hello.json) before anything is stored or logged.
func decodeHello(r *schema.Request) (lmp.Hello, error) {
	h, err := helloPayload(r)
	if err != nil {
		return h, err
	}
	for _, f := range []struct {
		name, value string
		max         int
	}{
		{"token", h.Token, lmp.MaxSecretLength},
		{"device_id", h.DeviceID, lmp.MaxIDLength},
		{"credential", h.Credential, lmp.MaxSecretLength},
		{"device_info.model", h.DeviceInfo.Model, lmp.MaxDeviceInfoLength},
		{"device_info.os", h.DeviceInfo.OS, lmp.MaxDeviceInfoLength},
		{"device_info.app_version", h.DeviceInfo.AppVersion, lmp.MaxDeviceInfoLength},
	} {
		if err := lmp.CheckLength(f.name, f.value, f.max); err != nil {
			return h, err
		}
	}
	// device_info is stored and printed by `lmp-server devices` and the
	// dashboard: a control character (ESC, CR, BEL, NUL) or a bidirectional
	// control could rewrite the administrator's terminal and hide a row
	// (the kubectl CVE-2021-25743 class). Output escapes them too
	// (lmp.Printable), for records stored before this check.
	for _, f := range []struct{ name, value string }{
		{"device_info.model", h.DeviceInfo.Model},
		{"device_info.os", h.DeviceInfo.OS},
		{"device_info.app_version", h.DeviceInfo.AppVersion},
	} {
		if lmp.HasControl(f.value) {
			return h, fmt.Errorf("%s holds a control character (a C0 or C1 control, DEL or a bidirectional control): send printable text", f.name)
		}
	}
	return h, nil
}
