// Package ours reads what a server chose where lmp-v1.md is silent (note
// 21): the fields of a task.list.result row other than its task_id, whose
// names, types and vocabulary the spec leaves open. Only SHOULD and INFO
// specs read through it: a MUST spec that reaches this package, or a
// field of package lmp tagged `lmp:"ours"`, fails internal/neutral's test
// with the file and line of the read.
//
// A field a row does not carry is reported as absent, never as a zero
// value: a server that sends no started_at has none, not one at 1970.
package ours

import (
	"encoding/json"
	"fmt"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// Row is one task.list.result row: its task_id and whatever else it holds.
type Row struct {
	TaskID string
	fields map[string]json.RawMessage
}

// Rows decodes the rows of a task.list.result frame, in the server's order.
func Rows(f client.Frame) ([]Row, error) {
	if f.Type != lmp.TypeTaskListResult {
		return nil, fmt.Errorf("%s frame seq %d is not a task.list.result", f.Type, f.Seq)
	}
	var p struct {
		Tasks []map[string]json.RawMessage `json:"tasks"`
	}
	if err := json.Unmarshal(f.Payload, &p); err != nil {
		return nil, fmt.Errorf("task.list.result frame seq %d: %w", f.Seq, err)
	}
	out := make([]Row, len(p.Tasks))
	for i, fields := range p.Tasks {
		out[i].fields = fields
		if err := json.Unmarshal(fields["task_id"], &out[i].TaskID); err != nil {
			return nil, fmt.Errorf("task.list.result frame seq %d: row %d: task_id: %v", f.Seq, i, err)
		}
	}
	return out, nil
}

// Has reports whether the row carries a field called name.
func (r Row) Has(name string) bool {
	_, ok := r.fields[name]
	return ok
}

// String returns the row's string field name; ok is false when the row has
// no such field or it is not a string.
func (r Row) String(name string) (s string, ok bool) {
	raw, has := r.fields[name]
	if !has {
		return "", false
	}
	return s, json.Unmarshal(raw, &s) == nil
}

// Value returns the row's field name decoded as any JSON value (numbers
// as float64); ok is false when the row has no such field.
func (r Row) Value(name string) (v any, ok bool) {
	raw, has := r.fields[name]
	if !has {
		return nil, false
	}
	return v, json.Unmarshal(raw, &v) == nil
}

// Status is the row's status, when it carries one as a string.
func (r Row) Status() (string, bool) { return r.String("status") }
