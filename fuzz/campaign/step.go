package campaign

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"
)

// Step ops.
const (
	OpText   = "text"   // send Data as a text frame
	OpBinary = "binary" // send Data as a binary frame
	OpWait   = "wait"   // pause for Wait before the next step
)

// Placeholders a step may hold; they are replaced as the step is sent.
const (
	PhToken      = "{{token}}"        // a fresh pairing token
	PhDeviceID   = "{{device_id}}"    // the episode device's id
	PhCredential = "{{credential}}"   // the episode device's credential
	PhOtherID    = "{{other_device}}" // another paired device's id
	PhApproval   = "{{approval_id}}"  // a recently seen approval id
	PhRunID      = "{{run_id}}"       // a recently seen run id
	PhTaskID     = "{{task_id}}"      // a recently seen task id
)

// Step is one action of an episode.
type Step struct {
	Op   string
	Data []byte
	Wait time.Duration
	// Gen names the generator that produced the step, for reports.
	Gen string
}

// stepJSON is Step on disk: Data as a string when it is valid UTF-8 and a
// text frame, base64 otherwise, so that no byte is lost.
type stepJSON struct {
	Op     string `json:"op"`
	Data   string `json:"data,omitempty"`
	B64    string `json:"b64,omitempty"`
	WaitMS int64  `json:"wait_ms,omitempty"`
	Gen    string `json:"gen,omitempty"`
}

// MarshalJSON implements json.Marshaler.
func (s Step) MarshalJSON() ([]byte, error) {
	j := stepJSON{Op: s.Op, WaitMS: s.Wait.Milliseconds(), Gen: s.Gen}
	if s.Op == OpText && utf8.Valid(s.Data) {
		j.Data = string(s.Data)
	} else if len(s.Data) > 0 {
		j.B64 = base64.StdEncoding.EncodeToString(s.Data)
	}
	return json.Marshal(j)
}

// UnmarshalJSON implements json.Unmarshaler.
func (s *Step) UnmarshalJSON(b []byte) error {
	var j stepJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	switch j.Op {
	case OpText, OpBinary, OpWait:
	default:
		return fmt.Errorf("step: unknown op %q", j.Op)
	}
	*s = Step{Op: j.Op, Wait: time.Duration(j.WaitMS) * time.Millisecond, Gen: j.Gen}
	if j.B64 != "" {
		d, err := base64.StdEncoding.DecodeString(j.B64)
		if err != nil {
			return fmt.Errorf("step: b64: %w", err)
		}
		s.Data = d
	} else {
		s.Data = []byte(j.Data)
	}
	return nil
}

// Episode is one connection's worth of steps.
type Episode struct {
	// Kind names the episode generator (schema, preauth, dup-hello, …).
	Kind  string `json:"kind"`
	Steps []Step `json:"steps"`
	// Drop ends the connection without a close handshake, as a phone that
	// loses its network does.
	Drop bool `json:"drop,omitempty"`
	// MayAuth is false when no hello of the episode carries a valid
	// identity: a hello.ok is then a finding.
	MayAuth bool `json:"may_auth"`
}

// usesToken reports whether any step needs a pairing token.
func (e Episode) usesToken() bool {
	for _, s := range e.Steps {
		if bytes.Contains(s.Data, []byte(PhToken)) {
			return true
		}
	}
	return false
}

// pauses reports whether the episode waits between its steps (OpWait).
func (e Episode) pauses() bool {
	for _, s := range e.Steps {
		if s.Op == OpWait {
			return true
		}
	}
	return false
}

// frames counts the steps that send a frame.
func (e Episode) frames() int {
	n := 0
	for _, s := range e.Steps {
		if s.Op != OpWait {
			n++
		}
	}
	return n
}

// fill replaces the placeholders in data, in one pass from left to right:
// one copy of a frame, however many placeholders it holds, and a value is
// never searched for placeholders itself. The copy is written over dst's
// storage, so that a sender reuses one buffer for every frame. data is
// returned unchanged, not copied, when it holds none.
func fill(dst, data []byte, vals map[string]string) []byte {
	i := bytes.Index(data, []byte("{{"))
	if i < 0 {
		return data
	}
	var out []byte
	done := 0 // data[:done] is in out
	for i >= 0 {
		ph, v, ok := placeholderAt(data[i:], vals)
		if !ok {
			i++ // "{{{token}}" holds a placeholder one byte on
		} else {
			if out == nil {
				out = dst[:0]
			}
			out = append(append(out, data[done:i]...), v...)
			i += len(ph)
			done = i
		}
		j := bytes.Index(data[i:], []byte("{{"))
		if j < 0 {
			break
		}
		i += j
	}
	if out == nil {
		return data
	}
	return append(out, data[done:]...)
}

// placeholderAt returns the placeholder that data begins with and its value.
func placeholderAt(data []byte, vals map[string]string) (ph, v string, ok bool) {
	for ph, v := range vals {
		if bytes.HasPrefix(data, []byte(ph)) {
			return ph, v, true
		}
	}
	return "", "", false
}
