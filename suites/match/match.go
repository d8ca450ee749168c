// Package match holds frame predicates for the conformance suites:
// match.Type("run.delta"), match.Task(id), match.Run(id),
// match.ErrorCode("already_resolved") …, combined with All and Any. Each
// predicate describes itself, so a wait that times out says what it was
// waiting for.
package match

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// M is a frame predicate with a description.
type M struct {
	Desc string
	Fn   func(client.Frame) bool
}

// Match reports whether f matches.
func (m M) Match(f client.Frame) bool { return m.Fn(f) }

// String is the description.
func (m M) String() string { return m.Desc }

// And is All(m, others...).
func (m M) And(others ...M) M { return All(append([]M{m}, others...)...) }

// All matches frames every m matches.
func All(ms ...M) M {
	descs := make([]string, len(ms))
	for i, m := range ms {
		descs[i] = m.Desc
	}
	return M{Desc: strings.Join(descs, " and "), Fn: func(f client.Frame) bool {
		for _, m := range ms {
			if !m.Fn(f) {
				return false
			}
		}
		return true
	}}
}

// Any matches frames at least one m matches.
func Any(ms ...M) M {
	descs := make([]string, len(ms))
	for i, m := range ms {
		descs[i] = m.Desc
	}
	return M{Desc: "(" + strings.Join(descs, " or ") + ")", Fn: func(f client.Frame) bool {
		for _, m := range ms {
			if m.Fn(f) {
				return true
			}
		}
		return false
	}}
}

// Anything matches every frame.
func Anything() M { return M{Desc: "any frame", Fn: func(client.Frame) bool { return true }} }

// Type matches frames of one of the given types.
func Type(types ...string) M {
	return M{Desc: "type " + strings.Join(types, "|"), Fn: func(f client.Frame) bool {
		for _, t := range types {
			if f.ParseErr == nil && f.Type == t {
				return true
			}
		}
		return false
	}}
}

// Durable matches frames of the types that advance seq (note 2).
func Durable() M {
	return M{Desc: "a durable event", Fn: func(f client.Frame) bool { return f.ParseErr == nil && lmp.IsDurable(f.Type) }}
}

// Task matches frames whose envelope task_id is id.
func Task(id string) M {
	return M{Desc: "task_id " + id, Fn: func(f client.Frame) bool { return lmp.Deref(f.TaskID) == id }}
}

// Run matches frames whose envelope run_id, or payload run_id, is id.
func Run(id string) M {
	return M{Desc: "run_id " + id, Fn: func(f client.Frame) bool {
		return lmp.Deref(f.RunID) == id || Field("run_id", id).Fn(f)
	}}
}

// Field matches frames whose payload has a top-level string field name
// equal to value.
func Field(name, value string) M {
	return M{Desc: fmt.Sprintf("payload.%s %q", name, value), Fn: func(f client.Frame) bool {
		var m map[string]any
		if json.Unmarshal(f.Payload, &m) != nil {
			return false
		}
		s, ok := m[name].(string)
		return ok && s == value
	}}
}

// Request matches the frames answering request_id id, whatever their
// type: the spec defines no acknowledgement frame (note 5), so a reply is
// any server frame whose payload carries the request_id (note 21).
func Request(id string) M {
	m := Field("request_id", id)
	m.Desc = "request_id " + id
	return m
}

// Answer matches the frame answering a request with request_id id: one
// that carries the request_id, or, since lmp-v1.md gives an error and a
// task.list.result no request_id (§4), an error or a frame of one of
// resultTypes that carries none.
func Answer(id string, resultTypes ...string) M {
	bare := M{Desc: "no request_id", Fn: func(f client.Frame) bool {
		var m map[string]json.RawMessage
		if json.Unmarshal(f.Payload, &m) != nil {
			return false
		}
		_, has := m["request_id"]
		return !has
	}}
	m := Any(Request(id), Type(append([]string{lmp.TypeError}, resultTypes...)...).And(bare))
	m.Desc = "the answer to request_id " + id
	return m
}

// Approval matches frames about approval id.
func Approval(id string) M {
	m := Field("approval_id", id)
	m.Desc = "approval_id " + id
	return m
}

// ErrorCode matches error frames with the given code.
func ErrorCode(code string) M {
	m := Type(lmp.TypeError).And(Field("code", code))
	m.Desc = "error " + code
	return m
}

// SeqAbove matches durable frames with seq greater than n.
func SeqAbove(n int64) M {
	return M{Desc: fmt.Sprintf("seq > %d", n), Fn: func(f client.Frame) bool {
		return f.ParseErr == nil && lmp.IsDurable(f.Type) && f.Seq > n
	}}
}

// Terminal matches the frames that end a run: run.completed and run.failed.
func Terminal() M { return Type(lmp.TypeRunCompleted, lmp.TypeRunFailed) }
