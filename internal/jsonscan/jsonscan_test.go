package jsonscan

import "testing"

func TestStringEnd(t *testing.T) {
	for _, tc := range []struct {
		in      string
		end     int
		escaped bool
	}{
		{`"abc"`, 4, false},
		{`""`, 1, false},
		{`"a\"b"`, 5, true},
		{`"a\\"b"`, 4, true},
		{`"a\\\"b"`, 7, true},
		{`"\u0022"`, 7, true},
		{`"abc`, -1, false},
		{`"ab\"`, -1, true},
		{`"ab\`, -1, false}, // no quote at all: the scan stops before it looks for escapes
	} {
		end, escaped := StringEnd([]byte(tc.in), 1)
		if end != tc.end || escaped != tc.escaped {
			t.Errorf("StringEnd(%s) = %d, %v; want %d, %v", tc.in, end, escaped, tc.end, tc.escaped)
		}
	}
}
