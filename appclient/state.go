package appclient

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// state is what the app stores: its pairing and the highest seq it
// processed. A cold start begins from it.
type state struct {
	URL        string `json:"url,omitempty"`
	FP         string `json:"fp,omitempty"`
	DeviceID   string `json:"device_id,omitempty"`
	Credential string `json:"credential,omitempty"`
	LastSeq    int64  `json:"last_seq"`
	// UsedToken is the last pairing token the app sent: a token works
	// once (P-4), so the app pairs again only from a pairing JSON with
	// another one.
	UsedToken string `json:"used_token,omitempty"`
}

func (s state) paired() bool { return s.DeviceID != "" && s.Credential != "" }

// load reads the state file; a missing file is a fresh install.
func load(path string) (state, error) {
	var s state
	if path == "" {
		return s, nil
	}
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	return s, json.Unmarshal(raw, &s)
}

// save writes the state file atomically, readable by its owner only: it
// holds the credential.
func save(path string, s state) error {
	if path == "" {
		return nil
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".appclient-state-*")
	if err != nil {
		return err
	}
	_, err = f.Write(raw)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}
