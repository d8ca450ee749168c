package schema

import (
	"strings"
)

// Error is one problem found in a frame or document.
type Error struct {
	// Frame names what was validated: the frame's type ("run.delta"), the
	// direction's envelope when the type is missing ("frame"), or a
	// document's schema name ("http/qr").
	Frame string
	// Pointer is the RFC 6901 JSON pointer of the offending value; "" is
	// the whole frame. A missing field is named by the pointer it should
	// have had.
	Pointer string
	// Rule is the rule broken, such as "F-1" or "E-3"; "driver-api" for the
	// mock driver API, which is not part of LMP.
	Rule string
	// Message says what is wrong, in one line. It never quotes the value
	// itself, so a token or credential cannot leak through it (S-1).
	Message string
}

// String formats e as one line, such as
//
//	run.delta: /payload/kind: must be one of "text", "reasoning" (F-1)
func (e Error) String() string {
	ptr := e.Pointer
	if ptr == "" {
		ptr = "(root)"
	}
	var b strings.Builder
	b.WriteString(e.Frame)
	b.WriteString(": ")
	b.WriteString(ptr)
	b.WriteString(": ")
	b.WriteString(oneLine(e.Message))
	if e.Rule != "" {
		b.WriteString(" (")
		b.WriteString(e.Rule)
		b.WriteString(")")
	}
	return b.String()
}

// Error makes Error usable as an error value.
func (e Error) Error() string { return e.String() }

func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}
