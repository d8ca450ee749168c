package lmp

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Frame is a server → client frame: the full envelope of §2 (E-1).
// TaskID and RunID are nil when the frame belongs to no task or run; they
// encode as JSON null, never as a missing field.
type Frame struct {
	V       int             `json:"v"`
	Seq     int64           `json:"seq"`
	TS      float64         `json:"ts"` // T-7: float epoch seconds
	Type    string          `json:"type"`
	TaskID  *string         `json:"task_id"`
	RunID   *string         `json:"run_id"`
	EventID string          `json:"event_id"` // E-3: "e_<seq>"
	Payload json.RawMessage `json:"payload"`
}

// ClientFrame is a client → server frame. Only v, type and payload are
// required (note 1); any other envelope field a client sends is ignored.
type ClientFrame struct {
	V       int             `json:"v"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
}

// Payload is implemented by every typed payload; FrameType names the frame
// type that carries it.
type Payload interface {
	FrameType() string
}

// EventID returns the event_id for seq (E-3).
func EventID(seq int64) string { return "e_" + strconv.FormatInt(seq, 10) }

// ParseEventID returns the seq an event_id names, or an error when it is
// not of the form e_<seq>.
func ParseEventID(id string) (int64, error) {
	digits, ok := strings.CutPrefix(id, "e_")
	if !ok {
		return 0, fmt.Errorf("event_id %q does not start with e_", id)
	}
	seq, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || seq < 0 || strconv.FormatInt(seq, 10) != digits {
		return 0, fmt.Errorf("event_id %q: %q is not a canonical non-negative integer", id, digits)
	}
	return seq, nil
}

// Timestamp converts t to float epoch seconds, UTC (T-7).
func Timestamp(t time.Time) float64 {
	return float64(t.UnixNano()) / 1e9
}

// TimeOf converts float epoch seconds back to a time.Time.
func TimeOf(ts float64) time.Time {
	sec := int64(ts)
	return time.Unix(sec, int64((ts-float64(sec))*1e9)).UTC()
}

// Ref returns a pointer to s, for the nullable TaskID and RunID fields.
func Ref(s string) *string { return &s }

// Deref returns *p, or "" when p is nil.
func Deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// NewFrame builds a server frame around a typed payload. event_id is
// derived from seq, so the two can never disagree.
func NewFrame(seq int64, ts time.Time, taskID, runID *string, p Payload) (Frame, error) {
	raw, err := json.Marshal(p)
	if err != nil {
		return Frame{}, fmt.Errorf("lmp: encode %s payload: %w", p.FrameType(), err)
	}
	return Frame{
		V: Version, Seq: seq, TS: Timestamp(ts), Type: p.FrameType(),
		TaskID: taskID, RunID: runID, EventID: EventID(seq), Payload: raw,
	}, nil
}

// NewClientFrame builds a client frame around a typed payload.
func NewClientFrame(p Payload) (ClientFrame, error) {
	raw, err := json.Marshal(p)
	if err != nil {
		return ClientFrame{}, fmt.Errorf("lmp: encode %s payload: %w", p.FrameType(), err)
	}
	return ClientFrame{V: Version, Type: p.FrameType(), Payload: raw}, nil
}

// ErrTypeMismatch is returned by DecodePayload when the frame's type is not
// the type of the payload asked for.
var ErrTypeMismatch = errors.New("lmp: frame type does not match payload type")

// DecodePayload decodes raw into a payload of type T after checking that
// frameType is T's type. Unknown fields are ignored (V-1).
func DecodePayload[T Payload](frameType string, raw json.RawMessage) (T, error) {
	var p T
	if frameType != p.FrameType() {
		return p, fmt.Errorf("%w: frame is %q, want %q", ErrTypeMismatch, frameType, p.FrameType())
	}
	if len(raw) == 0 {
		return p, fmt.Errorf("lmp: %s frame has no payload", frameType)
	}
	if err := Unmarshal(raw, &p); err != nil {
		return p, fmt.Errorf("lmp: decode %s payload: %w", frameType, err)
	}
	return p, nil
}

// DecodeServerPayload decodes f's payload into the typed payload for its
// type. An unknown type returns (nil, nil): receivers ignore it (V-1).
func DecodeServerPayload(f Frame) (Payload, error) {
	newPayload, ok := serverPayloads[f.Type]
	if !ok {
		return nil, nil
	}
	p := newPayload()
	if err := Unmarshal(f.Payload, p); err != nil {
		return nil, fmt.Errorf("lmp: decode %s payload: %w", f.Type, err)
	}
	return derefPayload(p), nil
}

// DecodeClientPayload is DecodeServerPayload for client frames.
func DecodeClientPayload(f ClientFrame) (Payload, error) {
	newPayload, ok := clientPayloads[f.Type]
	if !ok {
		return nil, nil
	}
	p := newPayload()
	if err := Unmarshal(f.Payload, p); err != nil {
		return nil, fmt.Errorf("lmp: decode %s payload: %w", f.Type, err)
	}
	return derefPayload(p), nil
}
