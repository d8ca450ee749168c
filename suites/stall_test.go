package suites

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestRetryStalled: an attempt that judged the machine is run once more;
// the second is kept whatever it saw, an error ends the probe at once, and
// the report notes every attempt not taken at its word.
func TestRetryStalled(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name  string
		late  []string // what each attempt returns
		err   error
		calls int
		notes []string
	}{
		{"on time", []string{""}, nil, 1, nil},
		{"stalled once", []string{"stall A", ""}, nil, 2, []string{"attempt 1 discarded and run again: stall A"}},
		{"stalled twice", []string{"stall A", "stall B", ""}, nil, 2, []string{"attempt 1 discarded and run again: stall A", "attempt 2 of 2 kept although stall B"}},
		{"error", []string{"stall A"}, boom, 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n notes
			calls := 0
			err := retryStalled(&n, func() (string, error) {
				calls++
				return tc.late[calls-1], tc.err
			})
			if !errors.Is(err, tc.err) || calls != tc.calls || strings.Join(n, "|") != strings.Join(tc.notes, "|") {
				t.Errorf("got err %v, %d calls, notes %q; want err %v, %d calls, notes %q", err, calls, n, tc.err, tc.calls, tc.notes)
			}
		})
	}
}

// notes collects what retryStalled notes.
type notes []string

func (n *notes) Notef(format string, args ...any) { *n = append(*n, fmt.Sprintf(format, args...)) }
