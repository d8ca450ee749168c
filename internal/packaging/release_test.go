package packaging

import (
	"os"
	"path/filepath"
	"testing"
)

// targets are the platforms of the release builds: every laptop and CI
// runner the kit's users have.
var targets = []struct{ goos, goarch string }{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// commands are the binaries each release archive holds.
var commands = []string{"lmp-server", "lmp-check"}

// TestCrossCompilesEveryTarget builds both commands for every release
// target without cgo, as the release does: a
// platform-specific file missing for one target (a terminal, signal or
// file-mode call that exists only on Unix) fails here, naming it. Not
// -trimpath, which the release adds: it changes nothing a platform needs,
// and this machine's own target then reuses the build cache of the tests.
func TestCrossCompilesEveryTarget(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	for _, tg := range targets {
		dir := filepath.Join(out, tg.goos+"_"+tg.goarch)
		goCmd(t, []string{"CGO_ENABLED=0", "GOOS=" + tg.goos, "GOARCH=" + tg.goarch},
			"build", "-o", dir+string(filepath.Separator), "./cmd/lmp-server", "./cmd/lmp-check")
		for _, c := range commands {
			if tg.goos == "windows" {
				c += ".exe"
			}
			if _, err := os.Stat(filepath.Join(dir, c)); err != nil {
				t.Errorf("%s/%s: no %s built: %v", tg.goos, tg.goarch, c, err)
			}
		}
	}
}
