package conformance

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// SkipNoServerLog is the skip reason of the S-1 spec without --server-log.
const SkipNoServerLog = "needs --server-log FILE"

// maxLeakLines bounds the line numbers a Leak keeps: a secret logged on
// every request would otherwise fill the report.
const maxLeakLines = 5

// Leak is a secret found in the server log. It names the secret by kind and
// fingerprint only (S-1).
type Leak struct {
	Secret Secret
	// Lines are the 1-based numbers of the first lines holding it (at most
	// five); Count is how many lines hold it in all.
	Lines []int
	Count int
}

// String is "credential 1a2b3c4d on line 12" (or "on 3 lines: 12, 13, 40").
func (l Leak) String() string {
	nums := make([]string, len(l.Lines))
	for i, n := range l.Lines {
		nums[i] = fmt.Sprint(n)
	}
	if l.Count == 1 {
		return fmt.Sprintf("%s on line %s", l.Secret, nums[0])
	}
	more := ""
	if l.Count > len(l.Lines) {
		more = ", …"
	}
	return fmt.Sprintf("%s on %d lines: %s%s", l.Secret, l.Count, strings.Join(nums, ", "), more)
}

// ScanLog reads the log file at path, line by line, and returns every
// secret of secrets that appears in it, in the order of secrets, with the
// lines it is on; lines is the number of lines read. The file is only
// read. Secrets shorter than MinSecretLen are not looked for.
func ScanLog(path string, secrets []Secret) (leaks []Leak, lines int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	want := make([][]byte, len(secrets))
	for i, s := range secrets {
		if len(s.Value) >= MinSecretLen {
			want[i] = []byte(s.Value)
		}
	}
	found := make([]Leak, len(secrets))
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, rerr := r.ReadBytes('\n')
		if len(line) > 0 {
			lines++
			for i, w := range want {
				if w != nil && bytes.Contains(line, w) {
					found[i].Count++
					if len(found[i].Lines) < maxLeakLines {
						found[i].Lines = append(found[i].Lines, lines)
					}
				}
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return nil, lines, rerr
		}
	}
	for i, l := range found {
		if l.Count > 0 {
			l.Secret = secrets[i]
			leaks = append(leaks, l)
		}
	}
	return leaks, lines, nil
}

// logPollInterval is how often WaitLog re-reads the log.
const logPollInterval = 50 * time.Millisecond

// WaitLog polls the log file at path until it holds one of markers (text
// that is no secret: a device ID, a fingerprint) or ctx ends. Servers
// buffer their logs, so a scan right after the activity could miss it.
// Each poll reads only what was appended since the last. found is false
// when ctx ended first; err reports a file that cannot be read.
func WaitLog(ctx context.Context, path string, markers ...string) (found bool, err error) {
	var want [][]byte
	longest := 0
	for _, m := range markers {
		if m != "" {
			want = append(want, []byte(m))
			longest = max(longest, len(m))
		}
	}
	if len(want) == 0 {
		return false, errors.New("WaitLog: no marker to wait for")
	}
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	tick := time.NewTicker(logPollInterval)
	defer tick.Stop()
	var offset int64
	var carry []byte // the end of what was read, for a marker split across reads
	buf := make([]byte, 64<<10)
	for {
		if st, err := f.Stat(); err == nil && st.Size() < offset {
			offset, carry = 0, nil // truncated: start over
		}
		for {
			n, rerr := f.ReadAt(buf, offset)
			if n > 0 {
				offset += int64(n)
				chunk := append(carry, buf[:n]...)
				for _, w := range want {
					if bytes.Contains(chunk, w) {
						return true, nil
					}
				}
				carry = append([]byte(nil), chunk[max(0, len(chunk)-longest+1):]...)
			}
			if rerr != nil {
				if !errors.Is(rerr, io.EOF) {
					return false, rerr
				}
				break
			}
		}
		select {
		case <-ctx.Done():
			return false, nil
		case <-tick.C:
		}
	}
}
