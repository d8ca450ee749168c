package conformance

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
)

func writeLog(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "server.log")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestScanLogFindsSecretsByLine(t *testing.T) {
	tok := Secret{SecretToken, "tok-0123456789abcdef"}
	cred := Secret{SecretCredential, "cred-ABCDEFGHIJKLMNOP_-"}
	clean := Secret{SecretCredential, "never-logged-credential"}
	short := Secret{SecretToken, "abc"} // too short to look for
	var lines []string
	lines = append(lines, "level=INFO msg=start abc", "level=INFO msg=paired token="+tok.Value, "level=INFO msg=other")
	for range 7 {
		lines = append(lines, "credential="+cred.Value)
	}
	lines = append(lines, "fingerprint "+lmp.Fingerprint(clean.Value)) // no trailing newline
	path := writeLog(t, lines...)

	leaks, n, err := ScanLog(path, []Secret{tok, cred, clean, short})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(lines) {
		t.Errorf("read %d lines, want %d", n, len(lines))
	}
	if len(leaks) != 2 {
		t.Fatalf("found %d leaks, want the token and the credential: %v", len(leaks), leaks)
	}
	if leaks[0].Secret != tok || leaks[0].Count != 1 || fmt.Sprint(leaks[0].Lines) != "[2]" {
		t.Errorf("token leak: %v", leaks[0])
	}
	if leaks[1].Count != 7 || fmt.Sprint(leaks[1].Lines) != "[4 5 6 7 8]" {
		t.Errorf("credential leak: count %d lines %v", leaks[1].Count, leaks[1].Lines)
	}
	// Reports name secrets by kind and fingerprint, never by value (S-1).
	for _, text := range []string{leaks[0].String(), leaks[1].String(), fmt.Sprintf("%v %+v %#v %s", tok, tok, tok, tok)} {
		if strings.Contains(text, tok.Value) || strings.Contains(text, cred.Value) {
			t.Errorf("a report shows a secret: %q", text)
		}
	}
	if got := leaks[1].String(); got != "credential "+lmp.Fingerprint(cred.Value)+" on 7 lines: 4, 5, 6, 7, 8, …" {
		t.Errorf("leak text %q", got)
	}
	if _, _, err := ScanLog(filepath.Join(t.TempDir(), "missing"), nil); err == nil {
		t.Error("a missing log scanned without error")
	}
}

func TestWaitLogPollsForAppendedMarker(t *testing.T) {
	path := writeLog(t, "level=INFO msg=start\n")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan bool, 1)
	go func() {
		found, err := WaitLog(ctx, path, "dev_0123456789")
		if err != nil {
			t.Error(err)
		}
		done <- found
	}()
	// Written in two pieces, so the marker may straddle two reads.
	if _, err := f.WriteString("level=INFO msg=paired device=dev_01234"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("56789\n"); err != nil {
		t.Fatal(err)
	}
	if !<-done {
		t.Fatal("WaitLog gave up before the marker was written")
	}

	short, cancel2 := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel2()
	found, err := WaitLog(short, path, "never-there")
	if err != nil || found {
		t.Fatalf("WaitLog for an absent marker = %v, %v; want false, nil at the deadline", found, err)
	}
}

func TestRecordSecretIgnoresShortAndRepeated(t *testing.T) {
	before := len(Secrets())
	v := "registry-test-" + time.Now().Format("150405.000000000")
	RecordSecret(SecretToken, v)
	RecordSecret(SecretToken, v)
	RecordSecret(SecretToken, "short")
	RecordSecret(SecretCredential, "")
	got := Secrets()
	if len(got) != before+1 || got[len(got)-1].Value != v {
		t.Fatalf("registry holds %d secrets after recording one new (had %d)", len(got), before)
	}
}
