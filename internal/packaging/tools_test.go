package packaging

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// tool is one of the pinned tools of tools/go.mod.
type tool struct {
	name, pkg string
	env       string // a variable naming an installed binary to use instead
	once      sync.Once
	path      string
	err       error
	out       []byte
}

// actionlint lints the GitHub Action and workflows.
var actionlint = &tool{name: "actionlint", pkg: "github.com/rhysd/actionlint/cmd/actionlint", env: "ACTIONLINT"}

// toolsDir holds the tools this package's tests build, for all of them.
var toolsDir = sync.OnceValues(func() (string, error) { return os.MkdirTemp("", "lmpkit-tools-*") })

// Path builds the tool at the version tools/go.mod pins (from the Go module
// proxy, once per test binary) and returns its path; $env names an
// installed one to use instead. A build that cannot be done here (no
// module proxy) skips the test with the reason, except under CI, where it
// fails it.
func (tl *tool) Path(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(tl.env); p != "" {
		return p
	}
	tl.once.Do(func() {
		dir, err := toolsDir()
		if err != nil {
			tl.err = err
			return
		}
		tl.path = filepath.Join(dir, tl.name)
		cmd := exec.Command("go", "build", "-C", filepath.Join(root, "tools"), "-o", tl.path, tl.pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		tl.out, tl.err = cmd.CombinedOutput()
	})
	if tl.err != nil {
		msg := "build " + tl.name + " from tools/go.mod (go build -C tools " + tl.pkg + "): " + tl.err.Error() + "\n" + strings.TrimSpace(string(tl.out))
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg + "\nset " + tl.env + " to an installed " + tl.name + " to run this test")
	}
	return tl.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if dir, err := toolsDir(); err == nil {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}
