package variant

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// The variant's own names for what the spec leaves unnamed (note 21).
const (
	// TypeReply is the variant's acknowledgement of session.send, and
	// TypeResolveResult that of approval.resolve (the reference server's
	// ack, note 5). The second is no approval event, although its name
	// starts like one: it neither advances seq in the reference server's
	// sense nor is replayed (lmp.IsDurable).
	TypeReply         = "reply"
	TypeResolveResult = "approval.resolve.result"
	// CodeBinaryUnsupported answers a binary frame, without closing (note 12).
	CodeBinaryUnsupported = "BINARY_UNSUPPORTED"
	// CodeVersionMismatch refuses an unsupported protocol_version, naming
	// no versions (note 11).
	CodeVersionMismatch = "version_mismatch"
	// CodeSecondHello refuses a second hello, fatally (note 16).
	CodeSecondHello = "second_hello"
	// ChoiceExpired is approval.resolved.choice of an approval that timed
	// out (the reference server's "timeout").
	ChoiceExpired = "expired"
)

// taskStatus maps the reference server's task row statuses to the
// variant's; statusFilter is the reverse, for task.list.status_filter.
var (
	taskStatus   = map[string]string{lmp.TaskStatusLive: "running", lmp.TaskStatusEnded: "done"}
	statusFilter = map[string]string{"running": lmp.TaskStatusLive, "done": lmp.TaskStatusEnded}
)

// closeCodes maps the reference server's close codes to the variant's; the
// others (1000, 1001, 1009, 1011) are kept.
var closeCodes = map[websocket.StatusCode]websocket.StatusCode{
	lmp.CloseProtocolError:   4002,
	lmp.CloseUnsupportedData: 4003,
	lmp.ClosePolicyViolation: 4008,
	lmp.CloseTryAgainLater:   4013,
}

// CloseCode is the variant's close code for the upstream's.
func CloseCode(upstream websocket.StatusCode) websocket.StatusCode {
	if c, ok := closeCodes[upstream]; ok {
		return c
	}
	return upstream
}

// closeCode is the close code the variant sends for the upstream's.
func (c Choices) closeCode(upstream websocket.StatusCode) websocket.StatusCode {
	// Note 12's preferred answer names its close code, 1003: a variant
	// that gives that answer keeps it whatever its other codes are.
	if upstream == lmp.CloseUnsupportedData && !c.On(12) {
		return upstream
	}
	if c.On(21) {
		return CloseCode(upstream)
	}
	return upstream
}

// code is the variant's error code for one of its own frames.
func (c Choices) code(code string) string {
	// Note 11's preferred answer names its error code, unsupported_version:
	// a variant that gives that answer keeps it whatever its other codes are.
	if code == lmp.CodeUnsupportedVersion && !c.On(11) {
		return code
	}
	if c.On(21) {
		return ErrorCode(code)
	}
	return code
}

// ErrorCode is the variant's error code for the reference server's: upper
// case, except already_resolved, the one code the spec names (I-2).
func ErrorCode(code string) string {
	if code == lmp.CodeAlreadyResolved {
		return code
	}
	return strings.ToUpper(code)
}

// object is a decoded JSON object whose numbers keep their text.
type object = map[string]any

func decode(data []byte) (object, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m object
	if dec.Decode(&m) != nil || dec.More() {
		return nil, false
	}
	return m, true
}

func encode(m object) []byte {
	raw, _ := json.Marshal(m) // a decoded object always encodes
	return raw
}

func payloadOf(m object) object {
	p, _ := m["payload"].(map[string]any)
	return p
}

func integer(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

// rewriteClientFrame translates a client frame for the upstream: hello's
// last_seq into the upstream's numbering, task.list's status_filter into
// the reference server's words (note 21). Every other frame goes through
// as sent. lastSeq translates a device's last_seq.
func (c Choices) rewriteClientFrame(data []byte, lastSeq func(device string, seq int64) int64) []byte {
	m, ok := decode(data)
	if !ok {
		return data
	}
	p := payloadOf(m)
	if p == nil {
		return data
	}
	switch m["type"] {
	case lmp.TypeHello:
		id, _ := p["device_id"].(string)
		seq, ok := integer(p["last_seq"])
		if !ok || id == "" {
			return data
		}
		p["last_seq"] = lastSeq(id, seq)
	case lmp.TypeTaskList:
		f, _ := p["status_filter"].(string)
		ref, ok := statusFilter[f]
		if !ok || !c.On(21) {
			return data
		}
		p["status_filter"] = ref
	default:
		return data
	}
	return encode(m)
}

// rewritePayload translates the payload of an upstream frame of type typ
// into the variant's answers; it returns the frame's new type.
func (c Choices) rewritePayload(typ string, env, p object) string {
	out := typ
	switch typ {
	case lmp.TypeAck:
		if c.On(21) {
			out = TypeReply
			if p["for"] == lmp.TypeApprovalResolve {
				out = TypeResolveResult
			}
		}
		if c.On(5) {
			for k := range p {
				if k != "request_id" {
					delete(p, k)
				}
			}
		}
	case lmp.TypeError:
		if c.On(11) && p["code"] == lmp.CodeUnsupportedVersion {
			p["code"] = CodeVersionMismatch
			delete(p, "supported_versions")
		}
		if code, ok := p["code"].(string); ok {
			p["code"] = c.code(code)
		}
	case lmp.TypeRunCompleted:
		if c.On(21) {
			p["finished"] = env["ts"] // when the run finished (T-7)
		}
	case lmp.TypeApprovalResolved:
		if c.On(15) && p["decided_by"] == lmp.DecidedByTimeout {
			p["decided_by"] = lmp.DecidedByAgent
		}
		if c.On(21) && p["choice"] == "timeout" {
			p["choice"] = ChoiceExpired
		}
	case lmp.TypeTaskListResult:
		rows, _ := p["tasks"].([]any)
		for _, r := range rows {
			row, _ := r.(map[string]any)
			if s, ok := row["status"].(string); ok && taskStatus[s] != "" && c.On(21) {
				row["status"] = taskStatus[s]
			}
		}
	}
	if c.Minimal {
		minimalPayload(typ, p)
	}
	return out
}

// failedCompletion is the run.completed{status:"failed"} the variant sends
// after each run.failed (note 6 allows the pair). Its content derives from
// the run.failed alone, so that a re-sent pair is identical (E-7).
func failedCompletion(failed object) object {
	p := payloadOf(failed)
	out := object{}
	for k, v := range failed {
		out[k] = v
	}
	out["type"] = lmp.TypeRunCompleted
	out["payload"] = object{
		"run_id": p["run_id"], "status": lmp.RunStatusFailed, "text": "",
		"error": p["error"], "finished": failed["ts"],
	}
	return out
}
