package packaging

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/internal/lmpservertest"
	"github.com/loomi-lmp/lmpkit/lmp"
)

// goreleaser builds the release (.goreleaser.yaml).
var goreleaser = &tool{name: "goreleaser", pkg: "github.com/goreleaser/goreleaser/v2", env: "GORELEASER"}

// targets are the platforms of the release builds: every laptop and CI
// runner the kit's users have.
var targets = []struct{ goos, goarch string }{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// commands are the binaries each release archive holds.
var commands = []string{"lmp-server", "lmp-check"}

// artifact is an entry of goreleaser's dist/artifacts.json.
type artifact struct {
	Name, Path, Goos, Goarch, Type string
}

// TestEveryTarget checks the kit on every platform of the release: go vet
// of every package, tests included, for windows and darwin, then the
// release build of every target. One after the other, so that the release
// build reuses the packages vet compiled for those platforms (the same
// flags: -trimpath, no cgo) from the build cache.
func TestEveryTarget(t *testing.T) {
	t.Parallel()
	t.Run("vet", testVetEveryOS)
	t.Run("release", testReleaseSnapshot)
}

// testVetEveryOS runs go vet on every package, tests included, for Windows
// and macOS: code that names a call or constant only Unix has (a signal,
// a file mode, getrusage) or only Linux has fails here, on this machine.
// Linux is vetted by the test command's own `go vet`.
func testVetEveryOS(t *testing.T) {
	for _, goos := range []string{"windows", "darwin"} {
		start := time.Now()
		goCmd(t, []string{"CGO_ENABLED=0", "GOOS=" + goos, "GOARCH=amd64"}, "vet", "-trimpath", "./...")
		t.Logf("go vet ./... for %s/amd64: clean, in %v", goos, time.Since(start).Round(time.Second))
	}
}

// testReleaseSnapshot runs the release as a maintainer
// does before a tag, `goreleaser release --snapshot --clean` with
// .goreleaser.yaml unchanged but for its output directory (a temporary
// one): the `goreleaser build --snapshot` of both commands for every
// target, plus the archives and checksums.txt. It is the cross-compile of
// every target: a platform-specific file missing for one (a terminal,
// signal or file-mode call that exists only on Unix) fails the build,
// naming it. Then it checks what was built, each binary by its own
// header (ELF, Mach-O or PE, and the machine in it) rather than by its
// name, each archive by its listing, each checksum against the archive's
// bytes; and it runs the linux binary of this machine's architecture:
// --version shows the stamped snapshot version and commit, and
// `lmp-server serve` answers /health, pairs a device whose hello.ok
// carries that version, and exits 0 on SIGTERM.
//
// goreleaser is built from the Go module proxy at the version tools/go.mod
// pins; its go builds share the tests' build cache.
func testReleaseSnapshot(t *testing.T) {
	gr := goreleaser.Path(t)
	dist := filepath.Join(t.TempDir(), "dist")
	cfg := readRepoFile(t, ".goreleaser.yaml")
	if regexp.MustCompile(`(?m)^dist:`).MatchString(cfg) {
		t.Fatal(".goreleaser.yaml sets dist:, which this test replaces with a temporary directory; change the test with it")
	}
	cfgPath := filepath.Join(t.TempDir(), "goreleaser.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg+"\ndist: "+dist+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cmd := exec.Command(gr, "release", "--snapshot", "--clean", "--config", cfgPath, "--timeout", "35m")
	cmd.Dir = root
	// The release's repository for goreleaser's git step, which a clone
	// without a remote (a worktree, a CI checkout of a bundle) lacks: without
	// it the step gives up and stamps the commit "none". Given in the
	// environment, the repository's configuration stays untouched.
	cmd.Env = append(os.Environ(), "GIT_CONFIG_COUNT=1",
		"GIT_CONFIG_KEY_0=remote.origin.url", "GIT_CONFIG_VALUE_0=https://github.com/loomi-lmp/lmpkit.git")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("goreleaser release --snapshot: %v\n%s", err, out)
	}
	t.Logf("goreleaser release --snapshot built every target in %v", time.Since(start).Round(time.Second))

	var meta struct{ Version, Commit string }
	readJSON(t, filepath.Join(dist, "metadata.json"), &meta)
	if !strings.Contains(meta.Version, "SNAPSHOT") || len(meta.Commit) < 12 {
		t.Fatalf("dist/metadata.json: version %q, commit %q: want a snapshot version and the commit", meta.Version, meta.Commit)
	}
	var arts []artifact
	readJSON(t, filepath.Join(dist, "artifacts.json"), &arts)
	pathOf := func(a artifact) string {
		if filepath.IsAbs(a.Path) {
			return a.Path
		}
		return filepath.Join(root, a.Path)
	}

	// Every binary, by its header.
	want := map[string]bool{}
	for _, tg := range targets {
		for _, c := range commands {
			want[c+" "+tg.goos+"/"+tg.goarch] = true
		}
	}
	built := map[string]string{} // "lmp-server linux/amd64" → path
	var archives []artifact
	var sums string
	for _, a := range arts {
		switch a.Type {
		case "Binary":
			goos, goarch, err := platformOf(pathOf(a))
			if err != nil {
				t.Errorf("%s: %v", a.Path, err)
				continue
			}
			if goos != a.Goos || goarch != a.Goarch {
				t.Errorf("%s: goreleaser says %s/%s, its header says %s/%s", a.Path, a.Goos, a.Goarch, goos, goarch)
			}
			key := strings.TrimSuffix(a.Name, ".exe") + " " + goos + "/" + goarch
			if !want[key] {
				t.Errorf("%s: an unexpected binary %s", a.Path, key)
			}
			if _, dup := built[key]; dup {
				t.Errorf("%s built twice", key)
			}
			if (goos == "windows") != strings.HasSuffix(a.Name, ".exe") {
				t.Errorf("%s: a %s binary named %s", a.Path, goos, a.Name)
			}
			built[key] = pathOf(a)
		case "Archive":
			archives = append(archives, a)
		case "Checksum":
			sums = readFile(t, pathOf(a))
		}
	}
	for key := range want {
		if built[key] == "" {
			t.Errorf("no %s built", key)
		}
	}

	// Every archive holds both commands of its platform, and checksums.txt
	// names each with the SHA-256 of its bytes.
	if len(archives) != len(targets) {
		t.Errorf("%d archives, want one for each of the %d targets", len(archives), len(targets))
	}
	listed := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(sums), "\n") {
		if f := strings.Fields(l); len(f) == 2 {
			listed[f[1]] = f[0]
		}
	}
	for _, a := range archives {
		names, sum := archiveListing(t, pathOf(a))
		for _, c := range commands {
			if a.Goos == "windows" {
				c += ".exe"
			}
			if !slices.Contains(names, c) {
				t.Errorf("%s holds %v, no %s", a.Name, names, c)
			}
		}
		if listed[a.Name] != sum {
			t.Errorf("checksums.txt gives %s as %q; its SHA-256 is %s", a.Name, listed[a.Name], sum)
		}
	}
	if t.Failed() {
		return
	}

	// This machine's linux binaries run, stamped.
	if runtime.GOOS != "linux" {
		t.Logf("not run: the release's binaries for this machine (%s) are not linux ones", runtime.GOOS)
		return
	}
	stamp := "v" + meta.Version + " (revision " + meta.Commit[:12]
	for _, c := range commands {
		out, err := exec.Command(built[c+" linux/"+runtime.GOARCH], "--version").CombinedOutput()
		if err != nil || !strings.Contains(string(out), stamp) {
			t.Errorf("%s --version: %v, %q: want the stamped %q", c, err, out, stamp)
		}
	}
	srv := lmpservertest.Serve(t, built["lmp-server linux/"+runtime.GOARCH], t.TempDir(), lmpservertest.FreeAddr(t), "--no-qr")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pr, err := client.Pair(ctx, srv.URL(lmp.PathPairNew), 0, nil)
	if err != nil {
		t.Fatalf("pair with the release's lmp-server: %v\n%s", err, srv.Stderr)
	}
	conn, _, ok, err := client.PairDevice(ctx, "ws://"+srv.Addr+lmp.PathWebSocket, pr.Token, nil)
	if err != nil {
		t.Fatalf("hello to the release's lmp-server: %v\n%s", err, srv.Stderr)
	}
	defer conn.CloseNow()
	if ok.ServerVersion != "v"+meta.Version {
		t.Errorf("hello.ok server_version %q, want the stamped v%s", ok.ServerVersion, meta.Version)
	}
	if code := srv.Stop(t, 30*time.Second); code != 0 {
		t.Errorf("the release's lmp-server exited %d on SIGTERM, want 0\n%s", code, srv.Stderr)
	}
}

// platformOf reads the GOOS and GOARCH an executable was built for from its
// header: ELF for linux, Mach-O for darwin, PE for windows.
func platformOf(path string) (goos, goarch string, err error) {
	if f, err := elf.Open(path); err == nil {
		defer f.Close()
		switch f.Machine {
		case elf.EM_X86_64:
			return "linux", "amd64", nil
		case elf.EM_AARCH64:
			return "linux", "arm64", nil
		}
		return "linux", "", errors.New("an ELF executable for machine " + f.Machine.String())
	}
	if f, err := macho.Open(path); err == nil {
		defer f.Close()
		switch f.Cpu {
		case macho.CpuAmd64:
			return "darwin", "amd64", nil
		case macho.CpuArm64:
			return "darwin", "arm64", nil
		}
		return "darwin", "", errors.New("a Mach-O executable for CPU " + f.Cpu.String())
	}
	if f, err := pe.Open(path); err == nil {
		defer f.Close()
		switch f.Machine {
		case pe.IMAGE_FILE_MACHINE_AMD64:
			return "windows", "amd64", nil
		case pe.IMAGE_FILE_MACHINE_ARM64:
			return "windows", "arm64", nil
		}
		return "windows", "", errors.New("a PE executable for an unknown machine")
	}
	return "", "", errors.New("neither ELF, Mach-O nor PE")
}

// archiveListing is the base names of the files a .tar.gz or .zip holds,
// and the archive's SHA-256 in hex.
func archiveListing(t *testing.T, path string) (names []string, sum string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(raw)
	sum = hex.EncodeToString(h[:])
	switch {
	case strings.HasSuffix(path, ".zip"):
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			names = append(names, filepath.Base(f.Name))
		}
	case strings.HasSuffix(path, ".tar.gz"):
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		gz, err := gzip.NewReader(f)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		tr := tar.NewReader(gz)
		for {
			hdr, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			names = append(names, filepath.Base(hdr.Name))
		}
	default:
		t.Fatalf("%s: an archive neither .tar.gz nor .zip", path)
	}
	return names, sum
}
