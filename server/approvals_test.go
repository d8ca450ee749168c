package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/loomi-lmp/lmpkit/hermes"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// The prompt's buttons are narrowed as send_exec_approval asks (H-3).
func TestApprovalChoicesNarrowed(t *testing.T) {
	e := newEnv(t)
	c, _ := e.pair()
	cases := []struct {
		perm, sess, smart bool
		want              string
	}{
		{true, true, false, "once/primary session/secondary always/secondary deny/danger"},
		{false, true, false, "once/primary session/secondary deny/danger"},
		{true, false, false, "once/primary deny/danger"},
		{true, true, true, "once/primary deny/danger"},
	}
	for i, tc := range cases {
		id := fmt.Sprint("req_", i)
		err := e.srv.SendExecApprovalPrompt(context.Background(), hermes.ExecApprovalPrompt{
			ChatID: "task_a", Command: "rm -rf x", SessionKey: hermes.SessionKeyPrefix + "task_a",
			AllowPermanent: tc.perm, AllowSession: tc.sess, SmartDenied: tc.smart, RequestID: id,
		})
		if err != nil {
			t.Fatal(err)
		}
		_, req := expectType[lmp.ApprovalRequired](t, c)
		var got []string
		for _, ch := range req.Choices {
			got = append(got, ch.Choice+"/"+ch.Style)
		}
		if req.ApprovalID != id || strings.Join(got, " ") != tc.want || req.SmartDenied != tc.smart {
			t.Errorf("perm=%v sess=%v smart=%v: %s %v, want %s", tc.perm, tc.sess, tc.smart, req.ApprovalID, got, tc.want)
		}
	}
}
