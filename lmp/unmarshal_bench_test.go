package lmp

import (
	"strings"
	"testing"
)

// BenchmarkUnmarshal decodes client frames with Unmarshal and with the rule
// it replaced (unmarshalByBytes: the pruned decode whenever any byte could
// belong to a foreign key): a session.send whose text holds upper-case
// letters, as most fuzzed and real ones do, and one whose text is 128 Ki
// escaped U+2028, the campaign's costliest string.
func BenchmarkUnmarshal(b *testing.B) {
	frames := []struct{ name, frame string }{
		{"upper-case-text", `{"v":1,"type":"session.send","payload":{"request_id":"r1","task_id":null,"text":"Hello World ` + strings.Repeat("Ab", 200) + `"}}`},
		{"escaped-128Ki", `{"v":1,"type":"session.send","payload":{"request_id":"r1","task_id":null,"text":"` + strings.Repeat(`\u2028`, 128<<10) + `"}}`},
	}
	for _, f := range frames {
		for _, d := range []struct {
			name string
			fn   func([]byte, any) error
		}{{"keys", Unmarshal}, {"bytes", unmarshalByBytes}} {
			b.Run(f.name+"/"+d.name, func(b *testing.B) {
				data := []byte(f.frame)
				b.ReportAllocs()
				for b.Loop() {
					var cf ClientFrame
					if err := d.fn(data, &cf); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
