package variant

import (
	"reflect"
	"strings"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// TaskTitleField is the name the minimal variant gives a task row's title:
// lmp-v1.md names no field of a row (note 21).
const TaskTitleField = "name"

// specFields are the payload fields lmp-v1.md §4 defines for each server
// frame type: the json names of package lmp's payload fields that are not
// tagged as the reference server's own (`lmp:"ours"`). The acknowledgement
// is no §4 frame; its request_id is what notes 5 and 21 ask of any reply.
var specFields = func() map[string][]string {
	out := map[string][]string{}
	for _, p := range []lmp.Payload{
		lmp.HelloOK{}, lmp.Error{}, lmp.RunStarted{}, lmp.RunDelta{}, lmp.RunInterim{},
		lmp.RunToolStarted{}, lmp.RunToolFinished{}, lmp.RunCompleted{}, lmp.RunFailed{},
		lmp.ApprovalRequired{}, lmp.ApprovalResolved{}, lmp.Notification{}, lmp.TaskListResult{},
		lmp.Ack{}, lmp.Ping{}, lmp.Pong{},
	} {
		t := reflect.TypeOf(p)
		names := []string{}
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Tag.Get("lmp") == "ours" {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			names = append(names, name)
		}
		out[p.FrameType()] = names
	}
	return out
}()

// minimalPayload strips p, the payload of an upstream frame of type typ,
// to §4's fields; a task row keeps its task_id and its title, renamed.
func minimalPayload(typ string, p object) {
	keep, known := specFields[typ]
	if !known {
		return
	}
	if typ == lmp.TypeTaskListResult {
		rows, _ := p["tasks"].([]any)
		for i, r := range rows {
			row, _ := r.(map[string]any)
			rows[i] = object{"task_id": row["task_id"], TaskTitleField: row["title"]}
		}
	}
	for k := range p {
		if !contains(keep, k) {
			delete(p, k)
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
