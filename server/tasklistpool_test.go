package server_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// task.list results are encoded into pooled buffers, given back once the
// writer has written them. Requests pipelined faster than the writer
// writes must each get their own result, whole: a buffer given back before
// its frame was written would carry another request's result, or a mix.
func TestPipelinedTaskListsKeepTheirOwnResults(t *testing.T) { // F-9
	e := newEnv(t)
	rows := make([]hermes.SessionRow, 150)
	for i := range rows {
		rows[i] = chatRow(fmt.Sprintf("s_%03d", i), fmt.Sprintf("chat_%03d", i))
		rows[i].Title = fmt.Sprintf("title %03d, long enough to make a row of a hundred bytes or more", i)
	}
	e.hermes.setSessions(rows...)
	c, _ := e.pair()
	const n = 60
	limit := func(i int) int { return []int{1, 150, 7, 120}[i%4] }
	for i := range n {
		l := limit(i)
		if err := c.Send(ctxT(t), lmp.TaskList{RequestID: fmt.Sprintf("rq-%d", i), Limit: &l}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		f, err := c.ExpectType(ctxT(t), lmp.TypeTaskListResult)
		if err != nil {
			t.Fatalf("result %d: %v", i, err)
		}
		var r lmp.TaskListResult
		if err := json.Unmarshal(f.Payload, &r); err != nil {
			t.Fatalf("result %d does not decode: %v: %.200s", i, err, f.Payload)
		}
		if want := fmt.Sprintf("rq-%d", i); r.RequestID != want || len(r.Tasks) != limit(i) {
			t.Fatalf("result %d: request_id %q with %d tasks, want %q with %d", i, r.RequestID, len(r.Tasks), want, limit(i))
		}
		for j, task := range r.Tasks {
			if want := fmt.Sprintf("title %03d, long enough to make a row of a hundred bytes or more", j); lmp.Deref(task.Title) != want {
				t.Fatalf("result %d, task %d: title %q, want %q", i, j, lmp.Deref(task.Title), want)
			}
		}
	}
}
