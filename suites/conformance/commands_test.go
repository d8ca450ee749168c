package conformance

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func resetPaired() {
	devicesMu.Lock()
	paired, order = map[string]bool{}, nil
	devicesMu.Unlock()
}

// TestRevokePairedSaysWhatItLeft: the clean-up revokes every device the
// run paired through --revoke-cmd, counts the ones the command refused, and
// without any way to revoke leaves them all, saying why.
func TestRevokePairedSaysWhatItLeft(t *testing.T) {
	defer resetPaired()
	resetPaired()
	for _, id := range []string{"dev_a", "dev_b", "dev_c", "dev_d"} {
		recordPaired(id)
	}
	markRevoked("dev_d") // revoked by a spec (S-5)
	ctx := context.Background()
	tgt := &Target{RevokeCmd: "test {device_id} != dev_b"}
	c := RevokePaired(ctx, tgt)
	if c.Paired != 4 || c.Revoked != 3 || c.Left != 1 || c.Err == nil || !strings.Contains(c.Err.Error(), "--revoke-cmd") {
		t.Errorf("with a revoke command that refuses dev_b: %+v", c)
	}
	// A second clean-up only retries what is left.
	tgt.RevokeCmd = "true"
	if c := RevokePaired(ctx, tgt); c.Revoked != 4 || c.Left != 0 || c.Err != nil {
		t.Errorf("second clean-up: %+v", c)
	}

	resetPaired()
	recordPaired("dev_x")
	recordPaired("dev_y")
	c = RevokePaired(ctx, &Target{})
	if c.Left != 2 || !errors.Is(c.Err, ErrNoRevoke) {
		t.Errorf("without a way to revoke: %+v", c)
	}
}

// TestRevokeCommandQuotesTheID: the device ID reaches the command as one
// word, whatever it holds.
func TestRevokeCommandQuotesTheID(t *testing.T) {
	defer resetPaired()
	tgt := &Target{RevokeCmd: `test "$(printf %s {device_id})" = "dev x'; exit 7; '"`}
	if err := tgt.Revoke(context.Background(), "dev x'; exit 7; '"); err != nil {
		t.Errorf("quoted ID: %v", err)
	}
	tgt.RevokeCmd = "echo nope >&2; exit 3"
	err := tgt.Revoke(context.Background(), "dev_1")
	if err == nil || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "nope") {
		t.Errorf("a failing command: %v", err)
	}
}

// TestListDevicesThroughTheCommand: --list-cmd's stdout is the listing,
// a failing command is an error naming the flag, and without a command or
// a ListFunc there is no way to list.
func TestListDevicesThroughTheCommand(t *testing.T) {
	ctx := context.Background()
	tgt := &Target{ListCmd: `printf 'DEVICE  MODEL\ndev_a  Pixel\n'; echo ignored >&2`}
	if out, err := tgt.ListDevices(ctx); err != nil || out != "DEVICE  MODEL\ndev_a  Pixel\n" {
		t.Errorf("listing %q, %v", out, err)
	}
	tgt.ListCmd = "echo no server >&2; exit 4"
	if _, err := tgt.ListDevices(ctx); err == nil || !strings.Contains(err.Error(), "--list-cmd") || !strings.Contains(err.Error(), "no server") {
		t.Errorf("a failing list command: %v", err)
	}
	tgt = &Target{ListFunc: func(context.Context) (string, error) { return `{"devices":[]}`, nil }}
	if out, err := tgt.ListDevices(ctx); err != nil || out != `{"devices":[]}` || !tgt.CanList() {
		t.Errorf("through ListFunc: %q, %v", out, err)
	}
	if _, err := (&Target{}).ListDevices(ctx); !errors.Is(err, ErrNoList) || (&Target{}).CanList() {
		t.Errorf("without a way to list: %v", err)
	}
}
