package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStoreRoundTripAndPermissions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	s, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := Device{ID: "dev_1", Model: "Pixel", CredentialHash: []byte{1, 2, 3}, Base: 41, CreatedAt: time.Now()}
	if err := s.PutDevice(d); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSeqLease(2048); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Revoke("dev_1", time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Revoke("nope", time.Now()); !errors.Is(err, ErrNotFound) {
		t.Fatalf("revoke unknown: %v, want ErrNotFound", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	fi, err := os.Stat(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m != 0o600 {
		t.Fatalf("store file mode %o, want 600", m)
	}
	di, _ := os.Stat(dir)
	if m := di.Mode().Perm(); m != 0o700 {
		t.Fatalf("data dir mode %o, want 700", m)
	}

	s, err = Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Device("dev_1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Base != 41 || got.Model != "Pixel" || !got.Revoked() || string(got.CredentialHash) != "\x01\x02\x03" {
		t.Fatalf("device after reopen: %+v", got)
	}
	if v, _ := s.SeqLease(); v != 2048 {
		t.Fatalf("lease after reopen %d, want 2048", v)
	}
	all, _ := s.Devices()
	if len(all) != 1 {
		t.Fatalf("devices: %d", len(all))
	}
}

func TestOpenLockedNamesPath(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// bbolt's flock is per open file description, so a second Open in the
	// same process contends like a second process would.
	_, err = Open(dir, nil)
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second open: %v, want ErrLocked", err)
	}
	if want := filepath.Join(dir, FileName); !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not name %s", err, want)
	}
}
