// Package mutant is the self-test's catalogue of source mutants: each is a
// small edit of the reference server's source that breaks one facet of one
// rule, the way a real bug would. The shipped code carries none of them; a
// mutant exists only in a scratch directory, handed to the Go toolchain as
// a build overlay (go build -overlay), so that the self-test
// (suites/selftest) can build a broken server and prove that lmp-check
// fails it on a spec labelled with the rule it breaks.
//
// The catalogue is catalogue.yaml beside this file. An edit names a file
// of the module, an exact snippet of its clean source and the snippet's
// replacement. Snippets are matched with every run of white space taken as
// one space, so that they can be written indented in YAML; a snippet must
// occur exactly once in the clean source, else the edit is refused with
// the mutant's and the file's names (a moved anchor is caught at once).
package mutant

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// Mutant is one deliberate bug.
type Mutant struct {
	// ID names the mutant: lowercase words joined by '-'.
	ID string `yaml:"id"`
	// Rules are the IDs of the rules it breaks; the self-test requires a
	// failing spec labelled with at least one of them.
	Rules []string `yaml:"rules"`
	// Sections are the suite section labels (section:<label>) to run
	// against it; a mutant needs only the sections its rules live in.
	Sections []string `yaml:"sections"`
	// Does says what the mutated server does, for FAULTS.md and the
	// self-test's table.
	Does string `yaml:"does"`
	// StrictOnly, when set, says why only a SHOULD spec can catch the
	// mutant (the rule's point is a preferred answer of notes.md): lmp-check
	// must then fail it under --strict only.
	StrictOnly string `yaml:"strict_only,omitempty"`
	// Survives, when set, says why no black-box check can catch the
	// mutant (unobservable from outside, or equivalent to the clean code).
	Survives string `yaml:"survives,omitempty"`
	// NeedsDriver, when set, says why only the Hermes side (the driver's
	// recorded calls and hook arguments) shows the mutant: the self-test
	// then does not require its driverless run (--no-driver --triggers
	// mock) to catch it, and fails if that run does.
	NeedsDriver string `yaml:"needs_driver,omitempty"`
	// OwnFields, when set, says that the mutant breaks only fields
	// lmp-v1.md does not define, the reference server's own (note 21):
	// only a SHOULD spec reading them through suites/ours sees it, so it
	// must also be strict_only. The self-test checks that the minimal
	// variant (internal/variant), which strips every such field, hides it
	// even under --strict: no spec reads a field that is not there.
	OwnFields string `yaml:"own_fields,omitempty"`
	// ProxyHides, when set, says why a proxy in front of the mutated
	// server takes the mutant off the wire by itself (it ends the
	// WebSocket and re-encodes every frame it passes): the self-test then
	// does not run it behind the minimal variant. Every other mutant that
	// lmp-check catches through the wire alone (no needs_driver, no
	// needs_host) must still be caught there.
	ProxyHides string `yaml:"proxy_hides,omitempty"`
	// NeedsHost, when set, names what the self-test's host must have for
	// the mutant to be observable: NetworkAddress (an address other than
	// loopback, at which the in-process server is reached as a phone on
	// the LAN reaches it) or PrivateAddress (one in a private range, RFC
	// 1918 or fc00::/7). On a host without it the mutant is skipped, and
	// the self-test says so.
	NeedsHost string `yaml:"needs_host,omitempty"`
	// Edits are applied in order, each to the result of the ones before.
	Edits []Edit `yaml:"edits"`
}

// The values of Mutant.NeedsHost.
const (
	NetworkAddress = "network-address"
	PrivateAddress = "private-address"
)

// Edit replaces one snippet of one file.
type Edit struct {
	// File is the path from the module root, with forward slashes.
	File string `yaml:"file"`
	// Find is a snippet of the clean file, matched with white space runs
	// taken as one space; it must occur exactly once.
	Find string `yaml:"find"`
	// Replace is put where Find was.
	Replace string `yaml:"replace"`
}

//go:embed catalogue.yaml
var catalogueYAML []byte

//go:embed appclient.yaml
var appCatalogueYAML []byte

// Catalogue returns the mutants of catalogue.yaml, in its order. It fails
// on a malformed catalogue: a duplicate or malformed ID, or a mutant
// without rules, sections, description or edits.
func Catalogue() ([]Mutant, error) { return parse("catalogue.yaml", catalogueYAML, true) }

// AppCatalogue returns the mutants of appclient.yaml: edits of the
// reference app client (appclient/), each breaking a client rule (C-1 …),
// which the app self-test requires `lmp-check app` to catch. Their
// sections are unused: an app run is narrowed by the mutant's rules.
func AppCatalogue() ([]Mutant, error) { return parse("appclient.yaml", appCatalogueYAML, false) }

func parse(name string, raw []byte, needSections bool) ([]Mutant, error) {
	var ms []Mutant
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(true)
	if err := dec.Decode(&ms); err != nil {
		return nil, fmt.Errorf("mutant: %s: %w", name, err)
	}
	seen := map[string]bool{}
	for i, m := range ms {
		switch {
		case !validID(m.ID):
			return nil, fmt.Errorf("mutant: %s entry %d: id %q: want lowercase words joined by '-'", name, i+1, m.ID)
		case seen[m.ID]:
			return nil, fmt.Errorf("mutant: %s: %s is listed twice", name, m.ID)
		case len(m.Rules) == 0 || (needSections && len(m.Sections) == 0) || m.Does == "" || len(m.Edits) == 0:
			return nil, fmt.Errorf("mutant: %s: %s: rules, sections, does and edits are required", name, m.ID)
		case m.StrictOnly != "" && m.Survives != "":
			return nil, fmt.Errorf("mutant: %s: %s: strict_only and survives exclude each other", name, m.ID)
		case m.OwnFields != "" && m.StrictOnly == "":
			return nil, fmt.Errorf("mutant: %s: %s: own_fields needs strict_only: no MUST spec reads a field lmp-v1.md does not define", name, m.ID)
		case m.ProxyHides != "" && (m.StrictOnly != "" || m.Survives != "" || m.NeedsDriver != ""):
			return nil, fmt.Errorf("mutant: %s: %s: proxy_hides is for a mutant caught through the wire; it excludes strict_only, survives and needs_driver", name, m.ID)
		case m.NeedsHost != "" && m.NeedsHost != NetworkAddress && m.NeedsHost != PrivateAddress:
			return nil, fmt.Errorf("mutant: %s: %s: needs_host %q: want %s or %s", name, m.ID, m.NeedsHost, NetworkAddress, PrivateAddress)
		}
		for j, e := range m.Edits {
			if e.File == "" || strings.TrimSpace(e.Find) == "" {
				return nil, fmt.Errorf("mutant: %s: %s: edit %d: file and find are required", name, m.ID, j+1)
			}
		}
		seen[m.ID] = true
	}
	return ms, nil
}

func validID(id string) bool {
	if id == "" || strings.HasPrefix(id, "-") || strings.HasSuffix(id, "-") || strings.Contains(id, "--") {
		return false
	}
	for _, r := range id {
		if r != '-' && !('a' <= r && r <= 'z') && !('0' <= r && r <= '9') {
			return false
		}
	}
	return true
}

// Files returns the mutated files' contents, by path from the module root,
// after applying m's edits to the clean sources under root.
func (m Mutant) Files(root string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for i, e := range m.Edits {
		src, ok := out[e.File]
		if !ok {
			var err error
			if src, err = os.ReadFile(filepath.Join(root, filepath.FromSlash(e.File))); err != nil {
				return nil, fmt.Errorf("mutant %s: edit %d: %w", m.ID, i+1, err)
			}
		}
		got, err := Replace(src, e.Find, e.Replace)
		if err != nil {
			return nil, fmt.Errorf("mutant %s: edit %d of %s: %w", m.ID, i+1, e.File, err)
		}
		out[e.File] = got
	}
	return out, nil
}

// Overlay writes m's mutated files into dir, with the overlay file that
// go build -overlay reads, and returns the overlay file's path.
func (m Mutant) Overlay(root, dir string) (string, error) {
	files, err := m.Files(root)
	if err != nil {
		return "", err
	}
	return WriteOverlay(root, dir, files)
}

// WriteOverlay writes files (contents by path from the module root) into
// dir, with the overlay file that go build -overlay reads, and returns the
// overlay file's path.
func WriteOverlay(root, dir string, files map[string][]byte) (string, error) {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	ov := struct{ Replace map[string]string }{Replace: map[string]string{}}
	for path, src := range files {
		scratch := filepath.Join(dir, strings.ReplaceAll(path, "/", "_"))
		if err := os.WriteFile(scratch, src, 0o644); err != nil {
			return "", err
		}
		ov.Replace[filepath.Join(absRoot, filepath.FromSlash(path))] = scratch
	}
	raw, err := json.Marshal(ov)
	if err != nil {
		return "", err
	}
	ovPath := filepath.Join(dir, "overlay.json")
	return ovPath, os.WriteFile(ovPath, raw, 0o644)
}

// ErrNotFound and ErrAmbiguous say why a snippet could not be replaced.
var (
	ErrNotFound  = errors.New("snippet not found")
	ErrAmbiguous = errors.New("snippet occurs more than once")
)

// Replace returns src with the one occurrence of find replaced by repl.
// White space runs match any white space run; find's leading and trailing
// white space is ignored.
func Replace(src []byte, find, repl string) ([]byte, error) {
	norm, pos := squeeze(string(src))
	needle, _ := squeeze(strings.TrimSpace(find))
	if needle == "" {
		return nil, ErrNotFound
	}
	at := strings.Index(norm, needle)
	if at < 0 {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, short(find))
	}
	if strings.Contains(norm[at+1:], needle) {
		return nil, fmt.Errorf("%w: %q", ErrAmbiguous, short(find))
	}
	start, end := pos[at], pos[at+len(needle)-1]+1
	out := make([]byte, 0, len(src)+len(repl))
	out = append(out, src[:start]...)
	out = append(out, strings.TrimSpace(repl)...)
	return append(out, src[end:]...), nil
}

// squeeze turns every white space run of s into one space and returns the
// result with, for each of its bytes, the offset of the byte in s it came
// from (a run maps to its first byte).
func squeeze(s string) (string, []int) {
	var b strings.Builder
	pos := make([]int, 0, len(s))
	space := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x80 && unicode.IsSpace(rune(c)) {
			if !space {
				b.WriteByte(' ')
				pos = append(pos, i)
			}
			space = true
			continue
		}
		space = false
		b.WriteByte(c)
		pos = append(pos, i)
	}
	return b.String(), pos
}

func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
