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
	if h.ProtocolVersion == 0 {
		h.ProtocolVersion = lmp.Version
	}
	if h.DeviceInfo == (lmp.DeviceInfo{}) {
		h.DeviceInfo = DefaultDeviceInfo
	}
	c.transcript.addSecret(h.Token)
	c.transcript.addSecret(h.Credential)
	if err := c.Send(ctx, h); err != nil {
		return lmp.HelloOK{}, err
	}
	f, err := c.Expect(ctx, func(f Frame) bool { return f.Type == lmp.TypeHelloOK || f.Type == lmp.TypeError })
	if err != nil {
		return lmp.HelloOK{}, err
	}
	if f.Type == lmp.TypeError {
		e, err := lmp.DecodePayload[lmp.Error](f.Type, f.Payload)
		if err != nil {
			return lmp.HelloOK{}, err
		}
		return lmp.HelloOK{}, &ServerError{e}
	}
	ok, err := lmp.DecodePayload[lmp.HelloOK](f.Type, f.Payload)
	if err != nil {
		return lmp.HelloOK{}, fmt.Errorf("hello.ok: %w", err)
	}
	if ok.Credential != nil {
		c.transcript.addSecret(*ok.Credential)
	}
	return ok, nil
}
