package lmp

import "reflect"

// serverPayloads and clientPayloads map a frame type to a constructor of a
// pointer to its payload. ping and pong appear in both directions.
var serverPayloads = map[string]func() any{
	TypeHelloOK:          func() any { return new(HelloOK) },
	TypeError:            func() any { return new(Error) },
	TypeRunStarted:       func() any { return new(RunStarted) },
	TypeRunDelta:         func() any { return new(RunDelta) },
	TypeRunInterim:       func() any { return new(RunInterim) },
	TypeRunToolStarted:   func() any { return new(RunToolStarted) },
	TypeRunToolFinished:  func() any { return new(RunToolFinished) },
	TypeRunCompleted:     func() any { return new(RunCompleted) },
	TypeRunFailed:        func() any { return new(RunFailed) },
	TypeApprovalRequired: func() any { return new(ApprovalRequired) },
	TypeApprovalResolved: func() any { return new(ApprovalResolved) },
	TypeNotification:     func() any { return new(Notification) },
	TypeTaskListResult:   func() any { return new(TaskListResult) },
	TypeAck:              func() any { return new(Ack) },
	TypePing:             func() any { return new(Ping) },
	TypePong:             func() any { return new(Pong) },
}

var clientPayloads = map[string]func() any{
	TypeHello:           func() any { return new(Hello) },
	TypePing:            func() any { return new(Ping) },
	TypePong:            func() any { return new(Pong) },
	TypeSessionSend:     func() any { return new(SessionSend) },
	TypeRunCancel:       func() any { return new(RunCancel) },
	TypeRunPause:        func() any { return new(RunPause) },
	TypeRunResume:       func() any { return new(RunResume) },
	TypeApprovalResolve: func() any { return new(ApprovalResolve) },
	TypeTaskList:        func() any { return new(TaskList) },
}

func derefPayload(p any) Payload {
	return reflect.ValueOf(p).Elem().Interface().(Payload)
}

// ClientPayloadType returns the Go type of the payload of a client frame
// type (lmp.Hello for "hello"), and false for a type that is not one of §4's
// client frames.
func ClientPayloadType(frameType string) (reflect.Type, bool) {
	newPayload, ok := clientPayloads[frameType]
	if !ok {
		return nil, false
	}
	return reflect.TypeOf(newPayload()).Elem(), true
}
