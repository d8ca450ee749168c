package mutant

import (
	"fmt"
	"os/exec"
	"path/filepath"
)

// AppMutant returns the app catalogue's mutant id (appclient.yaml).
func AppMutant(id string) (Mutant, error) {
	ms, err := AppCatalogue()
	if err != nil {
		return Mutant{}, err
	}
	for _, m := range ms {
		if m.ID == id {
			return m, nil
		}
	}
	return Mutant{}, fmt.Errorf("appclient.yaml has no mutant %q", id)
}

// BuildAppClient builds the reference app client's command
// (cmd/lmp-appclient) of the module at root into dir and returns the
// binary's path: faulty by m's edits, or the reference itself when m is
// nil. The self-test judges each faulty client; lmp-check's own tests use
// one for an app run that fails.
func BuildAppClient(m *Mutant, root, dir string) (string, error) {
	bin := filepath.Join(dir, "lmp-appclient")
	args := []string{"build", "-o", bin, "-ldflags=-s -w"}
	if m != nil {
		ov, err := m.Overlay(root, dir)
		if err != nil {
			return "", err
		}
		args = append(args, "-overlay", ov)
	}
	cmd := exec.Command("go", append(args, "github.com/loomi-lmp/lmpkit/cmd/lmp-appclient")...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build lmp-appclient: %v\n%s", err, out)
	}
	return bin, nil
}
