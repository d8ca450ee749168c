package server

import (
	"encoding/json"
	"slices"
	"strconv"
	"sync"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// appendTaskListResult appends r as encoding/json writes it. task.list's
// result is the largest reply the server sends, up to maxTaskList rows,
// and the one a client can ask for most cheaply; json.Marshal spent more
// time on it than on every other reply together. A field added to lmp.Task
// or lmp.TaskListResult fails TestTaskListResultIsWhatEncodingJSONWrites
// until it is appended here too.
func appendTaskListResult(dst []byte, r lmp.TaskListResult) []byte {
	dst = slices.Grow(dst, 64+len(r.Tasks)*taskRowSize)
	dst = append(dst, `{"request_id":`...)
	dst = appendJSON(dst, r.RequestID)
	dst = append(dst, `,"tasks":`...)
	if r.Tasks == nil {
		dst = append(dst, "null"...)
		return append(dst, '}')
	}
	dst = append(dst, '[')
	for i, t := range r.Tasks {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendTask(dst, t)
	}
	return append(dst, "]}"...)
}

// taskListBufs holds the buffers task.list results are encoded into for
// sending. The result is the largest reply, about 64 KiB at maxTaskList
// rows; a client asking again and again cost an allocation of that size,
// and its clearing, each time. The writer gives a buffer back once its
// frame is written (scoped.release); one grown past maxPooledTaskList is
// let go instead.
var taskListBufs = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledTaskList = 256 << 10

// encodeTaskList encodes r as encodePayload does, into a buffer of
// taskListBufs, which it returns for the writer to give back.
func encodeTaskList(r lmp.TaskListResult, taskID, runID *string) (json.RawMessage, *[]byte, error) {
	buf := taskListBufs.Get().(*[]byte)
	*buf = appendTaskListResult((*buf)[:0], r)
	raw, err := fitPayload(*buf, taskID, runID)
	if err != nil {
		putTaskListBuf(buf)
		return nil, nil, err
	}
	return raw, buf, nil
}

// release gives the pooled storage of f's payload back, once f is written:
// the payload is not read again.
func (f *scoped) release() {
	if f.buf != nil {
		putTaskListBuf(f.buf)
	}
	f.buf = nil
}

// putTaskListBuf gives buf back to taskListBufs, unless it grew past
// maxPooledTaskList.
func putTaskListBuf(buf *[]byte) {
	if cap(*buf) <= maxPooledTaskList {
		taskListBufs.Put(buf)
	}
}

// taskRowSize is about what a task row takes encoded, with a preview of
// 60 characters, so that a result is mostly written in one allocation.
const taskRowSize = 320

// appendTask appends one task row as encoding/json writes it.
func appendTask(dst []byte, t lmp.Task) []byte {
	dst = append(dst, `{"task_id":`...)
	dst = appendJSON(dst, t.TaskID)
	dst = append(dst, `,"title":`...)
	dst = appendJSON(dst, t.Title)
	if t.Status != "" {
		dst = append(dst, `,"status":`...)
		dst = appendJSON(dst, t.Status)
	}
	dst = append(dst, `,"source":`...)
	dst = appendJSON(dst, t.Source)
	dst = append(dst, `,"model":`...)
	dst = appendJSON(dst, t.Model)
	dst = append(dst, `,"started_at":`...)
	dst = appendJSON(dst, t.StartedAt)
	dst = append(dst, `,"ended_at":`...)
	dst = appendJSON(dst, t.EndedAt)
	dst = append(dst, `,"message_count":`...)
	dst = strconv.AppendInt(dst, int64(t.MessageCount), 10)
	dst = append(dst, `,"preview":`...)
	dst = appendJSON(dst, t.Preview)
	dst = append(dst, `,"last_active":`...)
	dst = appendJSON(dst, t.LastActive)
	return append(dst, '}')
}
