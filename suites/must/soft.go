package must

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/onsi/ginkgo/v2"
)

// Soft collects the expectations of a spec that do not stop it (Matrix
// Complement's should-style checks): each broken expectation is recorded as
// one line, and Done fails the spec with all of them. A SHOULD or INFO
// spec checks its real point first and then every observation, so that
// its report names everything the server did differently, not only the
// first. The zero value is ready to use.
type Soft struct {
	broken []string
}

// That records a broken expectation when ok is false; it returns ok.
func (s *Soft) That(ok bool, format string, args ...any) bool {
	if !ok {
		s.broken = append(s.broken, fmt.Sprintf(format, args...))
	}
	return ok
}

// Equal records "what: want W, got G" when got and want differ.
func (s *Soft) Equal(what string, got, want any) bool {
	return s.That(equal(got, want), "%s: want %s, got %s", what, Show(want), Show(got))
}

// Done fails the spec when any expectation was broken, naming each one.
func (s *Soft) Done() {
	ginkgo.GinkgoHelper()
	if len(s.broken) == 0 {
		return
	}
	msg := s.broken[0]
	if len(s.broken) > 1 {
		msg = fmt.Sprintf("%d expectations broken:\n  %s", len(s.broken), strings.Join(s.broken, "\n  "))
	}
	ginkgo.Fail(msg)
}

// That fails the spec at once when ok is false, with the message.
func That(ok bool, format string, args ...any) {
	ginkgo.GinkgoHelper()
	if !ok {
		ginkgo.Fail(fmt.Sprintf(format, args...))
	}
}

// Equal fails the spec at once with "what: want W, got G" when got and
// want differ.
func Equal(what string, got, want any) {
	ginkgo.GinkgoHelper()
	if !equal(got, want) {
		ginkgo.Fail(fmt.Sprintf("%s: want %s, got %s", what, Show(want), Show(got)))
	}
}

// equal compares after following pointers; numbers of any Go type compare
// by value, so that Equal("seq", f.Seq, 0) holds for an int64 seq of 0.
func equal(got, want any) bool {
	g, w := deref(got), deref(want)
	if gf, ok := number(g); ok {
		wf, ok := number(w)
		return ok && gf == wf
	}
	return reflect.DeepEqual(g, w)
}

func number(v any) (float64, bool) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(rv.Uint()), true
	case reflect.Float32, reflect.Float64:
		return rv.Float(), true
	}
	return 0, false
}

func deref(v any) any {
	rv := reflect.ValueOf(v)
	for rv.IsValid() && rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil
		}
		rv = rv.Elem()
	}
	if !rv.IsValid() {
		return nil
	}
	return rv.Interface()
}

// Show renders a value for a one-line failure message: strings quoted,
// nil as "nothing", pointers followed.
func Show(v any) string {
	switch t := deref(v).(type) {
	case nil:
		return "nothing"
	case string:
		return fmt.Sprintf("%q", t)
	case []byte:
		return fmt.Sprintf("%q", t)
	case fmt.Stringer:
		return t.String()
	default:
		return fmt.Sprintf("%v", t)
	}
}
