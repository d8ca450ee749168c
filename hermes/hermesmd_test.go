package hermes

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// hermesDoc is the description of real Hermes the boundary follows; it
// lives beside the module's checkout (or beside the directory of its
// worktrees), not in it. HERMES_MD names another copy.
var hermesDoc = func() string {
	if p := os.Getenv("HERMES_MD"); p != "" {
		return p
	}
	first := filepath.Join("..", "..", "shared", "hermes.md")
	for _, p := range []string{first, filepath.Join("..", "..", "..", "shared", "hermes.md")} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return first
}()

var (
	backticked = regexp.MustCompile("`([^`]*)`")
	// example is an example value in a kwargs cell ("e.g. `text_response(stop)`"), not a kwarg.
	example = regexp.MustCompile("e\\.g\\. `[^`]*`")
)

// docHookTable reads the hook table of hermes.md ("| `hook` | when |
// kwargs |"): the kwargs every call carries, as the first sentence of the
// kwargs cell lists them. "base +" is on_stream_start's kwargs, "the same
// +" the previous row's.
func docHookTable(t *testing.T, doc string) (map[string][]string, map[string]string) {
	t.Helper()
	kwargs, cells := map[string][]string{}, map[string]string{}
	var prev []string
	for _, line := range strings.Split(doc, "\n") {
		cols := strings.Split(line, "|")
		if len(cols) != 5 || !strings.HasPrefix(strings.TrimSpace(cols[1]), "`") {
			continue
		}
		name := strings.Trim(strings.TrimSpace(cols[1]), "`")
		cell := strings.TrimSpace(cols[3])
		cells[name] = cols[2] + cell
		first := example.ReplaceAllString(cell, "")
		for _, stop := range []string{". ", ": ", ";", " — "} {
			if i := strings.Index(first, stop); i >= 0 {
				first = first[:i]
			}
		}
		var list []string
		switch {
		case strings.HasPrefix(first, "base +"):
			list = slices.Clone(kwargs["on_stream_start"])
		case strings.HasPrefix(first, "the same +"):
			list = slices.Clone(prev)
		}
		for _, m := range backticked.FindAllStringSubmatch(first, -1) {
			for _, k := range strings.Split(m[1], ",") {
				list = append(list, strings.TrimSpace(k))
			}
		}
		kwargs[name], prev = list, list
	}
	return kwargs, cells
}

// TestHookKwargsMatchHermesDoc checks the boundary's table of Hermes' hooks
// against the hook table of ../shared/hermes.md: the same hooks, the same
// kwargs on every call, and every optional kwarg named in the hook's row.
// Both the adapter (package server) and the mock Hermes build and read
// kwargs through this table's structs, so a kwarg missing on either side
// fails here.
func TestHookKwargsMatchHermesDoc(t *testing.T) {
	raw, err := os.ReadFile(hermesDoc)
	if os.IsNotExist(err) {
		t.Skipf("%s is not beside the module; the hook table cannot be checked", hermesDoc)
	}
	if err != nil {
		t.Fatal(err)
	}
	doc, cells := docHookTable(t, string(raw))
	if len(doc) < 10 {
		t.Fatalf("found %d hooks in %s's table; has its layout changed?", len(doc), hermesDoc)
	}
	for _, h := range Hooks {
		want, ok := doc[h.Name]
		if !ok {
			t.Errorf("%s: the boundary types it, hermes.md's table does not list it", h.Name)
			continue
		}
		got := h.Names()
		if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
			t.Errorf("%s kwargs:\n hermes/   %v\n hermes.md %v", h.Name, got, want)
		}
		for _, o := range h.Optional {
			if !strings.Contains(cells[h.Name], o.Name) {
				t.Errorf("%s: optional kwarg %s is not mentioned in its hermes.md row", h.Name, o.Name)
			}
		}
	}
	for name := range doc {
		if !slices.ContainsFunc(Hooks, func(h HookSpec) bool { return h.Name == name }) {
			t.Errorf("%s: hermes.md lists it, the boundary's table has not", name)
		}
	}
	if !strings.Contains(string(raw), `"`+TelemetrySchemaVersion+`"`) {
		t.Errorf("hermes.md does not give telemetry_schema_version %q", TelemetrySchemaVersion)
	}
}
