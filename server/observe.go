package server

// FrameObserver is told of every WebSocket frame a connection reads or
// writes, for tools that show the traffic (the lmp-server dashboard). It is
// called on the connection's reader or writer goroutine, so it must return
// quickly and must not call back into the Server. Config.Observer nil
// costs one nil check per frame.
type FrameObserver func(ObservedFrame)

// ObservedFrame is one frame as it crossed the wire.
type ObservedFrame struct {
	// Conn identifies the connection within this process.
	Conn uint64
	// Sent is true for a frame the server wrote, false for one it read.
	Sent bool
	// Data is the frame as on the wire. It holds secrets (a hello's token
	// or credential, hello.ok's credential): redact before showing it
	// (S-1). It is only valid during the call.
	Data []byte
	// Envelope is, for a frame the server wrote, what it wrote into the
	// frame's envelope, so that an observer need not scan Data to index
	// the frame. For a frame the server read and decoded as a client
	// frame of an authenticated connection, it holds the Type and Payload
	// decoded: what a server reads of a client frame's envelope (§2's
	// seq, ts, task_id, run_id and event_id are the server's to send).
	// It is the zero Envelope for any other frame read: only Data tells
	// what the peer sent.
	Envelope Envelope
}

// Envelope is the envelope of a frame as the server wrote or decoded it.
type Envelope struct {
	Type          string
	Seq           int64
	TaskID, RunID *string // nil where the frame has null
	// Payload is the frame's payload as written or read, which may hold
	// secrets like Data. It is only valid during the call.
	Payload []byte
}

// observe hands a frame to Config.Observer, if any.
func (c *conn) observe(sent bool, data []byte, env Envelope) {
	if o := c.s.cfg.Observer; o != nil {
		o(ObservedFrame{Conn: c.id, Sent: sent, Data: data, Envelope: env})
	}
}
