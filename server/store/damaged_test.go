package store

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// storeWith writes a store of n devices and returns its directory and file.
func storeWith(t *testing.T, n int) (dir, path string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "data")
	s, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		d := Device{ID: fmt.Sprintf("dev_%03d", i), Model: "Pixel 9", OS: "Android 16", AppVersion: "1.0",
			CredentialHash: bytes.Repeat([]byte{byte(i)}, 32), Base: int64(i), CreatedAt: time.Now()}
		if err := s.PutDevice(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetSeqLease(4096); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, s.Path()
}

// refused opens dir and expects ErrDamaged: one line naming the file and
// what to do, and the file not touched.
func refused(t *testing.T, dir, path, why string) {
	t.Helper()
	before := fileSum(t, path)
	s, err := Open(dir, nil)
	if err == nil {
		s.Close()
		t.Fatalf("Open accepted a store that is %s", why)
	}
	msg := err.Error()
	if !errors.Is(err, ErrDamaged) || !strings.Contains(msg, path) || !strings.Contains(msg, "restore the file from a backup") || strings.Contains(msg, "\n") {
		t.Fatalf("store that is %s: %q, want one line wrapping ErrDamaged naming %s and what to do", why, msg, path)
	}
	if fileSum(t, path) != before {
		t.Fatalf("Open wrote to a store that is %s", why)
	}
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(raw)
}

func TestEmptyStoreIsRefused(t *testing.T) {
	// A 0-byte file used to become a new, empty store: 100 paired apps locked out, no word in the log.
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	refused(t, dir, path, "empty")
	if !strings.Contains(func() string { _, err := Open(dir, nil); return err.Error() }(), "empty (0 bytes)") {
		t.Fatal("the error does not say the file is empty")
	}
}

func TestTruncatedStoreIsRefused(t *testing.T) {
	dir, path := storeWith(t, 100)
	info, _ := os.Stat(path)
	for _, size := range []int64{info.Size() / 2, 4096 + 100, 100} {
		if err := os.Truncate(path, size); err != nil {
			t.Fatal(err)
		}
		refused(t, dir, path, fmt.Sprintf("truncated to %d bytes", size))
	}
}

func TestDamagedStoreIsRefusedWithoutPanic(t *testing.T) {
	dir, path := storeWith(t, 100)
	good, _ := os.ReadFile(path)
	const page = 4096
	write := func(b []byte) {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("random data pages", func(t *testing.T) { // a Go panic with a 27-line trace before
		r := rand.New(rand.NewPCG(1, 2))
		b := bytes.Clone(good)
		for i := 2 * page; i < len(b); i++ {
			b[i] = byte(r.Uint32())
		}
		write(b)
		refused(t, dir, path, "random past its meta pages")
	})
	t.Run("random meta pages", func(t *testing.T) {
		b := bytes.Clone(good)
		for i := range 2 * page {
			b[i] ^= 0x5a
		}
		write(b)
		refused(t, dir, path, "damaged in both meta pages")
	})
	t.Run("a device record that does not decode", func(t *testing.T) { // an error not naming the file before
		b := bytes.Clone(good)
		i := bytes.Index(b, []byte(`{"id":"dev_042"`))
		if i < 0 {
			t.Fatal("device record not found in the file")
		}
		b[i] = '#'
		write(b)
		refused(t, dir, path, "holding a broken device record")
	})
	t.Run("flipped bytes", func(t *testing.T) {
		// bbolt has no checksum on data pages: a flip may land where nothing
		// notices. Whatever happens, Open never panics, and either refuses
		// naming the file or yields a store that reads back every device.
		r := rand.New(rand.NewPCG(3, 4))
		refusedN := 0
		for round := range 40 {
			b := bytes.Clone(good)
			for range 4 {
				b[2*page+r.IntN(len(b)-2*page)] ^= byte(1 << r.IntN(8))
			}
			write(b)
			before := fileSum(t, path)
			s, err := Open(dir, nil)
			if err != nil {
				if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), path) {
					t.Fatalf("round %d: %v", round, err)
				}
				if fileSum(t, path) != before {
					t.Fatalf("round %d: a refused store was written to", round)
				}
				refusedN++
				continue
			}
			if _, err := s.Devices(); err != nil {
				t.Fatalf("round %d: Open accepted a store whose devices do not read: %v", round, err)
			}
			s.Close()
		}
		t.Logf("%d of 40 damaged copies refused", refusedN)
	})
}

func TestLooseDataDirectoryIsTightened(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil { // whatever the umask
		t.Fatal(err)
	}
	var logs bytes.Buffer
	s, err := Open(dir, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	info, _ := os.Stat(dir)
	if m := info.Mode().Perm(); m != 0o700 {
		t.Fatalf("data directory mode %04o, want 0700", m)
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), dir) || !strings.Contains(logs.String(), "0755") {
		t.Fatalf("no warning naming the directory and its old mode: %q", logs.String())
	}
}
