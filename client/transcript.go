package client

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// Direction of a transcript entry.
type Direction string

const (
	DirSent     Direction = "→" // client to server
	DirReceived Direction = "←" // server to client
	DirClosed   Direction = "×" // the connection ended
)

// Entry is one line of a transcript.
type Entry struct {
	At     time.Time
	Dir    Direction
	Binary bool
	Data   []byte // for DirClosed, the close description
}

// Transcript records a connection's frames. Secrets it has seen (tokens
// and credentials sent in hello or received in hello.ok) are replaced by
// their fingerprint whenever entries are rendered (S-1).
type Transcript struct {
	mu      sync.Mutex
	start   time.Time
	entries []Entry
	secrets map[string]bool
}

// maxTranscriptEntries bounds a transcript's memory on long connections;
// the newest entries are kept.
const maxTranscriptEntries = 4096

func newTranscript() *Transcript {
	return &Transcript{start: time.Now(), secrets: map[string]bool{}}
}

func (t *Transcript) add(dir Direction, data []byte, binary bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.entries) >= maxTranscriptEntries {
		t.entries = append(t.entries[:0:0], t.entries[len(t.entries)/2:]...)
	}
	t.entries = append(t.entries, Entry{At: time.Now(), Dir: dir, Binary: binary, Data: append([]byte(nil), data...)})
}

func (t *Transcript) addClose(ce *CloseError) {
	t.add(DirClosed, []byte(ce.Error()), false)
}

func (t *Transcript) addSecret(s string) {
	if s == "" {
		return
	}
	t.mu.Lock()
	t.secrets[s] = true
	t.mu.Unlock()
}

// Entries returns a copy of the entries, secrets redacted.
func (t *Transcript) Entries() []Entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Entry, len(t.entries))
	for i, e := range t.entries {
		e.Data = []byte(t.redactLocked(string(e.Data)))
		out[i] = e
	}
	return out
}

// String renders the transcript one entry per line, with the time since
// the connection opened, secrets redacted.
func (t *Transcript) String() string {
	var b strings.Builder
	for _, e := range t.Entries() {
		data := string(e.Data)
		if e.Binary {
			data = fmt.Sprintf("<binary, %d bytes>", len(e.Data))
		}
		const maxLine = 2000
		if len(data) > maxLine {
			data = data[:maxLine] + fmt.Sprintf("… (%d bytes)", len(e.Data))
		}
		fmt.Fprintf(&b, "%8.3fs %s %s\n", e.At.Sub(t.start).Seconds(), e.Dir, data)
	}
	return b.String()
}

// Redact replaces every secret this transcript has seen in s.
func (t *Transcript) Redact(s string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.redactLocked(s)
}

func (t *Transcript) redactLocked(s string) string {
	for secret := range t.secrets {
		if strings.Contains(s, secret) {
			s = strings.ReplaceAll(s, secret, lmp.Redacted+":"+lmp.Fingerprint(secret))
		}
	}
	return s
}
