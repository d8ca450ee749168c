package server

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
)

func TestEventLogIsBoundedAndOrdered(t *testing.T) { // E-5, E-6
	l := newEventLog(4, 100) // resumes after global index 100, as after a restart
	if evs, complete := l.since(100); len(evs) != 0 || !complete {
		t.Fatal("empty log after restart")
	}
	if _, complete := l.since(50); complete {
		t.Fatal("numbers before the restart are a truncated gap")
	}
	for i := 0; i < 10; i++ {
		l.add(testEvent(lmp.TypeNotification, time.Now(), nil, nil, json.RawMessage(`{}`)))
	}
	if l.n != 4 || len(l.ring) != 4 || l.last != 110 || l.oldest() != 107 {
		t.Fatalf("ring n=%d last=%d oldest=%d", l.n, l.last, l.oldest())
	}
	evs, complete := l.since(106)
	if !complete || len(evs) != 4 || evs[0].g != 107 || evs[3].g != 110 {
		t.Fatalf("since(106): %d events, complete %v", len(evs), complete)
	}
	evs, complete = l.since(102)
	if complete || len(evs) != 4 || evs[0].g != 107 {
		t.Fatal("since(102) should be truncated with the held tail")
	}
	// Per-device rendering: seq and event_id follow the device's base.
	var f lmp.Frame
	if err := json.Unmarshal(evs[0].appendTo(nil, 100), &f); err != nil {
		t.Fatal(err)
	}
	if f.Seq != 7 || f.EventID != "e_7" || f.Type != lmp.TypeNotification || f.TaskID != nil || f.V != 1 {
		t.Fatalf("rendered %+v", f)
	}
}

// TestEventLogReadersWithoutLock appends while readers take events through
// their cursors without a lock, as connection writers do: each reader gets
// every index in order until it falls out of the window, and never an
// event other than the one it asked for (run with -race).
func TestEventLogReadersWithoutLock(t *testing.T) {
	const window, total = 64, 20000
	l := newEventLog(window, 0)
	done := make(chan string, 4)
	for r := range 4 {
		go func() {
			cursor, buf := int64(0), make([]*event, 0, 32)
			for cursor < total {
				evs, ok := l.after(cursor, buf[:0])
				for _, e := range evs {
					if e.g != cursor+1 {
						done <- fmt.Sprintf("reader %d: got index %d after %d", r, e.g, cursor)
						return
					}
					cursor = e.g
				}
				if !ok {
					if l.published()-cursor < window {
						done <- fmt.Sprintf("reader %d: told it fell out at %d, only %d behind", r, cursor, l.published()-cursor)
						return
					}
					cursor = l.published() // a slow consumer reconnects at the head
				}
			}
			done <- ""
		}()
	}
	ev := testEvent(lmp.TypeNotification, time.Now(), nil, nil, json.RawMessage(`{}`))
	for range total {
		e := *ev
		l.add(&e)
	}
	for range 4 {
		if msg := <-done; msg != "" {
			t.Fatal(msg)
		}
	}
}
