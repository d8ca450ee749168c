package lmp

import (
	"fmt"
	"unicode/utf8"
)

// Limits on the strings a client sends that a server echoes or stores. The
// spec sets none; these are the reference server's, written as maxLength in
// schema/c2s (which counts characters, as these do) and documented in
// docs/deployment.md. They exist so that no reply or broadcast built from a
// client's strings can grow past MaxFrameBytes: JSON escaping can make one
// character six bytes (U+2028 becomes \u2028), so a limit of N characters
// costs at most 6N bytes on the wire.
const (
	// MaxIDLength bounds task_id, run_id, approval_id and request_id, and
	// hello's device_id. The server's own ids are about 20 characters.
	MaxIDLength = 128
	// MaxTextLength bounds session.send's text and approval.resolve's
	// reason: 64 Ki characters, at most 384 KiB once escaped.
	MaxTextLength = 64 << 10
	// MaxDeviceInfoLength bounds each field of hello's device_info (model,
	// os, app_version): they are stored and listed by /internal/devices.
	MaxDeviceInfoLength = 128
	// MaxSecretLength bounds hello's token and credential (the server's own
	// are 43 characters); they are hashed, never stored or echoed.
	MaxSecretLength = 256
)

// CheckLength returns an error naming field and limit when s has more than
// max characters.
func CheckLength(field, s string, max int) error {
	if len(s) <= max { // a character is at least one byte
		return nil
	}
	if n := utf8.RuneCountInString(s); n > max {
		return fmt.Errorf("%s is %d characters, over the limit of %d", field, n, max)
	}
	return nil
}

// Shorten returns s cut to at most 64 characters, with an ellipsis and the
// full length when it was cut, for quoting a client's string in a log line.
func Shorten(s string) string {
	const keep = 64
	if len(s) <= keep {
		return s
	}
	n := 0
	for i := range s {
		if n == keep {
			return fmt.Sprintf("%s…(%d bytes)", s[:i], len(s))
		}
		n++
	}
	return s
}
