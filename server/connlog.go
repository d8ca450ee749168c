package server

import (
	"encoding/json"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// The info lines a developer watching the server wants to see: a phone
// connecting (auth.go: "device paired", "device connected"), sending a
// message, and going away. They name the device by its ID and never
// carry a secret or the message's text (S-1).

// logMessage logs a phone's session.send.
func (c *conn) logMessage(f lmp.ClientFrame) {
	var p struct {
		TaskID *string `json:"task_id"`
		Text   string  `json:"text"`
	}
	_ = json.Unmarshal(f.Payload, &p)
	task := "new"
	if p.TaskID != nil {
		task = *p.TaskID
	}
	c.log.Info("message from device", "device", c.dev.rec.ID, "task", lmp.Shorten(task), "chars", len([]rune(p.Text)))
}

// logEnd logs the end of a connection: at info, naming the device, for an
// authenticated phone; at debug for one that never said hello.
func (c *conn) logEnd(lasted time.Duration) {
	if c.dev == nil {
		c.log.Debug("connection ended", "after", lasted.Round(time.Millisecond).String())
		return
	}
	c.log.Info("connection ended", "device", c.dev.rec.ID, "after", lasted.Round(time.Millisecond).String())
}

// lastSeqAttr is a hello's last_seq for a log line, "none" when absent.
func lastSeqAttr(seq *int64) any {
	if seq == nil {
		return "none"
	}
	return *seq
}
