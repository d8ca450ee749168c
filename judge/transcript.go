package judge

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/loomi-lmp/lmpkit/lmp"
)

var errTimeout = errors.New("timed out")

func asCloseError(err error, ce *websocket.CloseError) bool { return errors.As(err, ce) }

type direction string

const (
	dirToApp   direction = "→ app"
	dirFromApp direction = "← app"
	dirClosed  direction = "× "
	dirNote    direction = "· "
)

type logEntry struct {
	at   time.Time
	conn int
	dir  direction
	data string
}

// wireLog is the run's transcript of every connection, secrets redacted
// when rendered: tokens and credentials appear as their fingerprints (S-1).
type wireLog struct {
	mu      sync.Mutex
	start   time.Time
	entries []logEntry
	secrets []string
}

func newWireLog() *wireLog { return &wireLog{start: time.Now()} }

func (l *wireLog) secret(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.secrets = append(l.secrets, s)
}

func (l *wireLog) add(conn int, dir direction, data []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, logEntry{at: time.Now(), conn: conn, dir: dir, data: string(data)})
}

func (l *wireLog) note(format string, args ...any) {
	l.add(0, dirNote, []byte(fmt.Sprintf(format, args...)))
}

// mark is a position in the log.
func (l *wireLog) mark() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}

// since renders the entries from mark on, at most max lines: the first
// and last halves when there are more.
func (l *wireLog) since(mark, max int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	es := l.entries[min(mark, len(l.entries)):]
	var b strings.Builder
	write := func(e logEntry) {
		data := e.data
		for _, s := range l.secrets {
			if s != "" {
				data = strings.ReplaceAll(data, s, lmp.Redacted+":"+lmp.Fingerprint(s))
			}
		}
		if len(data) > 600 {
			data = data[:600] + fmt.Sprintf("… (%d bytes)", len(e.data))
		}
		fmt.Fprintf(&b, "%8.3fs conn %d %s %s\n", e.at.Sub(l.start).Seconds(), e.conn, e.dir, data)
	}
	if len(es) <= max {
		for _, e := range es {
			write(e)
		}
		return b.String()
	}
	for _, e := range es[:max/2] {
		write(e)
	}
	fmt.Fprintf(&b, "          … %d entries left out …\n", len(es)-max)
	for _, e := range es[len(es)-max/2:] {
		write(e)
	}
	return b.String()
}
