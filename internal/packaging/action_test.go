package packaging

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loomi-lmp/lmpkit/internal/lmpservertest"
	"go.yaml.in/yaml/v3"
)

// actionMeta is the part of action.yml's schema the runner relies on.
type actionMeta struct {
	Name        string
	Description string
	Inputs      map[string]struct {
		Description string
		Required    bool
		Default     *string
	}
	Outputs map[string]struct {
		Description string
		Value       string
	}
	Runs struct {
		Using string
		Steps []map[string]any
	}
}

// TestActionMetadata checks action.yml as GitHub reads it: a composite
// action whose every input is described, has a default unless required,
// and is the only kind of input its steps refer to; every run step names
// its shell and runs a script that exists. Then actionlint, at the version
// tools/go.mod pins, lints the repository's workflows and the workflow
// CI.md gives plugin repositories, the latter calling this very action.yml
// as a local action, so that its inputs are checked against the metadata.
func TestActionMetadata(t *testing.T) {
	t.Parallel()
	raw := readRepoFile(t, "action.yml")
	var meta actionMeta
	dec := yaml.NewDecoder(strings.NewReader(raw))
	dec.KnownFields(false)
	if err := dec.Decode(&meta); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if meta.Name == "" || meta.Description == "" {
		t.Error("action.yml needs a name and a description")
	}
	if meta.Runs.Using != "composite" {
		t.Errorf("runs.using is %q, want composite", meta.Runs.Using)
	}
	for _, want := range []string{"url", "triggers", "token-cmd", "list-cmd", "revoke-cmd", "restart-cmd", "crash-cmd", "junit-report", "html-report", "strict"} {
		if _, ok := meta.Inputs[want]; !ok {
			t.Errorf("action.yml has no input %q", want)
		}
	}
	for name, in := range meta.Inputs {
		if in.Description == "" {
			t.Errorf("input %q has no description", name)
		}
		if !in.Required && in.Default == nil {
			t.Errorf("input %q is optional without a default", name)
		}
	}
	for _, m := range regexp.MustCompile(`inputs\.([a-z0-9-]+)`).FindAllStringSubmatch(raw, -1) {
		if _, ok := meta.Inputs[m[1]]; !ok {
			t.Errorf("action.yml refers to inputs.%s, which it does not declare", m[1])
		}
	}
	for i, step := range meta.Runs.Steps {
		run, isRun := step["run"].(string)
		if !isRun {
			continue
		}
		if step["shell"] == nil {
			t.Errorf("step %d runs %q without a shell: a composite action's run steps must name one", i, run)
		}
		for _, m := range regexp.MustCompile(`\$GITHUB_ACTION_PATH/([\w./-]+)`).FindAllStringSubmatch(run, -1) {
			if info, err := os.Stat(filepath.Join(root, m[1])); err != nil || info.Mode()&0o111 == 0 {
				t.Errorf("step %d runs %s, which is not an executable file of the repository", i, m[1])
			}
		}
	}

	// actionlint over a repository of the test's own: this action as a
	// local one, the workflow of CI.md using it, and our workflows.
	al := actionlint.Path(t)
	repo := t.TempDir()
	mustWrite(t, filepath.Join(repo, "action.yml"), raw)
	for _, f := range []string{"action/install.sh", "action/run.sh"} {
		mustWrite(t, filepath.Join(repo, f), readRepoFile(t, f))
	}
	example := yamlBlockAfter(t, readRepoFile(t, "CI.md"), "## GitHub Actions")
	if !strings.Contains(example, "uses: loomi-lmp/lmpkit@v1") {
		t.Fatalf("CI.md's workflow does not use the action (uses: loomi-lmp/lmpkit@v1):\n%s", example)
	}
	mustWrite(t, filepath.Join(repo, ".github/workflows/plugin.yml"), strings.Replace(example, "uses: loomi-lmp/lmpkit@v1", "uses: ./", 1))
	workflows, err := filepath.Glob(filepath.Join(root, ".github/workflows/*.yml"))
	if err != nil || len(workflows) == 0 {
		t.Fatalf("no workflows under .github/workflows: %v", err)
	}
	for _, w := range workflows {
		mustWrite(t, filepath.Join(repo, ".github/workflows", filepath.Base(w)), readFile(t, w))
	}
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	cmd := exec.Command(al, "-shellcheck=", "-pyflakes=", "-color=false")
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("actionlint: %v\n%s", err, out)
	}

	// actionlint does read the local action's metadata: an input it does
	// not declare is reported.
	mustWrite(t, filepath.Join(repo, ".github/workflows/plugin.yml"), strings.Replace(example, "uses: loomi-lmp/lmpkit@v1", "uses: ./", 1)+"          no-such-input: x\n")
	cmd = exec.Command(al, "-shellcheck=", "-pyflakes=", "-color=false", ".github/workflows/plugin.yml")
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "no-such-input") {
		t.Errorf("actionlint did not report an undeclared input of the action: %v\n%s", err, out)
	}
}

// TestActionRunsAgainstLmpServer runs the action's entry scripts as the
// runner would, with its INPUT_* variables and GitHub's files: install.sh
// builds lmp-check from the source (a release cannot be downloaded here),
// and run.sh checks a real lmp-server process with the target commands,
// writes the JUnit and HTML reports, the step outputs and the job
// summary. Against a port where nothing listens it fails the step with
// lmp-check's exit code 2.
func TestActionRunsAgainstLmpServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gh := func(name string) string { return filepath.Join(dir, name) }
	for _, f := range []string{"output", "summary", "path"} {
		mustWrite(t, gh(f), "")
	}
	runnerTemp := gh("runner")
	install := exec.Command("bash", filepath.Join(root, "action/install.sh"))
	install.Env = append(os.Environ(), "INPUT_VERSION=release", "ACTION_REF=main", "RUNNER_TEMP="+runnerTemp, "GITHUB_PATH="+gh("path"))
	out, err := install.CombinedOutput()
	if err != nil {
		t.Fatalf("action/install.sh: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "building lmp-check from the action's source") || !strings.Contains(string(out), "lmp-check github.com/loomi-lmp/lmpkit") {
		t.Errorf("install.sh at a branch: want a build from source and lmp-check --version, got:\n%s", out)
	}
	binDir := strings.TrimSpace(readFile(t, gh("path")))
	if binDir != filepath.Join(runnerTemp, "lmp-check-bin") {
		t.Fatalf("GITHUB_PATH holds %q", binDir)
	}

	server := binary(t, "lmp-server")
	addr := lmpservertest.FreeAddr(t)
	srv := lmpservertest.Start(t, server, gh("data"), addr, "--no-qr")

	top, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	run := func(url string) (int, string) {
		cmd := exec.Command("bash", filepath.Join(top, "action/run.sh"))
		cmd.Dir = dir
		cmd.Env = append(os.Environ(),
			"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
			"GITHUB_OUTPUT="+gh("output"), "GITHUB_STEP_SUMMARY="+gh("summary"),
			"INPUT_URL="+url, "INPUT_TRIGGERS=mock",
			"INPUT_LIST_CMD="+server+" devices --addr "+addr,
			"INPUT_REVOKE_CMD="+server+" revoke --addr "+addr+" {device_id}",
			"INPUT_LABEL_FILTER=T-2 || S-5 || P-4",
			"INPUT_STRICT=false", "INPUT_ARGS=--auth-timeout 10s",
			"INPUT_JUNIT_REPORT=reports/junit.xml", "INPUT_HTML_REPORT=reports/report.html", "INPUT_JSON_REPORT=reports/report.json",
		)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		switch {
		case err == nil:
			return 0, string(out)
		case errors.As(err, &exit):
			return exit.ExitCode(), string(out)
		}
		t.Fatalf("action/run.sh: %v\n%s", err, out)
		return 0, ""
	}

	// The server comes up while install.sh builds; run.sh's lmp-check
	// waits for nothing, so wait for /health here as a workflow's start
	// step does.
	srv.WaitHealthy(t, time.Minute)
	code, runOut := run("ws://" + addr + "/ws")
	if code != 0 {
		t.Fatalf("action/run.sh against lmp-server: exit %d\n%s", code, runOut)
	}
	for _, f := range []string{"reports/junit.xml", "reports/report.html", "reports/report.json"} {
		if info, err := os.Stat(gh(f)); err != nil || info.Size() == 0 {
			t.Errorf("no report %s: %v", f, err)
		}
	}
	if got := readFile(t, gh("output")); got != "exit-code=0\nconformant=true\n" {
		t.Errorf("step outputs %q", got)
	}
	if s := readFile(t, gh("summary")); !strings.Contains(s, "lmp-check: conformant") || !strings.Contains(s, "Result: CONFORMANT") {
		t.Errorf("job summary:\n%s", s)
	}
	for _, want := range []string{"[S-5", "[P-4", "[T-2"} {
		if !strings.Contains(runOut, want) {
			t.Errorf("the run checked no %s spec:\n%s", want, runOut)
		}
	}

	mustWrite(t, gh("output"), "")
	if code, out := run("ws://" + lmpservertest.FreeAddr(t) + "/ws"); code != 2 {
		t.Errorf("action/run.sh against a closed port: exit %d, want 2\n%s", code, out)
	}
	if got := readFile(t, gh("output")); got != "exit-code=2\nconformant=false\n" {
		t.Errorf("step outputs against a closed port: %q", got)
	}
}

func mustWrite(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	mode := os.FileMode(0o644)
	if strings.HasSuffix(path, ".sh") {
		mode = 0o755
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

// yamlBlockAfter is the first ```yaml block after heading in a Markdown
// document.
func yamlBlockAfter(t *testing.T, doc, heading string) string {
	t.Helper()
	i := strings.Index(doc, heading)
	if i < 0 {
		t.Fatalf("no %q", heading)
	}
	rest := doc[i:]
	start := strings.Index(rest, "```yaml\n")
	if start < 0 {
		t.Fatalf("no yaml block after %q", heading)
	}
	rest = rest[start+len("```yaml\n"):]
	end := strings.Index(rest, "```")
	if end < 0 {
		t.Fatalf("an unterminated yaml block after %q", heading)
	}
	return rest[:end]
}
