package client

import (
	"context"
	"fmt"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// DefaultDeviceInfo is sent in hello when the caller gives none.
var DefaultDeviceInfo = lmp.DeviceInfo{Model: "lmpkit", OS: "go", AppVersion: "1"}

// Hello sends h (filling protocol_version and device_info when empty) and
// waits for hello.ok. An error frame in reply is returned as *ServerError;
// the connection's end as *CloseError. Frames that arrive before hello.ok
// other than error stay in the inbox.
func (c *Conn) Hello(ctx context.Context, h lmp.Hello) (lmp.HelloOK, error) {
	ok, _, err := c.HelloFrame(ctx, h)
	return ok, err
}

// HelloFrame is Hello that also returns the frame that answered: the
// hello.ok (its envelope seq matters for replay, note 2) or the error frame.
// The transcript learns every token and credential involved (S-1).
func (c *Conn) HelloFrame(ctx context.Context, h lmp.Hello) (lmp.HelloOK, Frame, error) {
	if h.ProtocolVersion == 0 {
		h.ProtocolVersion = lmp.Version
	}
	if h.DeviceInfo == (lmp.DeviceInfo{}) {
		h.DeviceInfo = DefaultDeviceInfo
	}
	c.transcript.addSecret(h.Token)
	c.transcript.addSecret(h.Credential)
	if err := c.Send(ctx, h); err != nil {
		return lmp.HelloOK{}, Frame{}, err
	}
	f, err := c.Expect(ctx, func(f Frame) bool { return f.Type == lmp.TypeHelloOK || f.Type == lmp.TypeError })
	if err != nil {
		return lmp.HelloOK{}, f, err
	}
	if f.Type == lmp.TypeError {
		e, err := lmp.DecodePayload[lmp.Error](f.Type, f.Payload)
		if err != nil {
			return lmp.HelloOK{}, f, err
		}
		return lmp.HelloOK{}, f, &ServerError{Payload: e}
	}
	ok, err := lmp.DecodePayload[lmp.HelloOK](f.Type, f.Payload)
	if err != nil {
		return lmp.HelloOK{}, f, fmt.Errorf("hello.ok: %w", err)
	}
	if ok.Credential != nil {
		c.transcript.addSecret(*ok.Credential)
	}
	return ok, f, nil
}
