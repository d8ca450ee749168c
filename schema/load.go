package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// registry is every embedded schema, compiled once.
type registry struct {
	byName map[string]*jsonschema.Schema // "s2c/run.delta" → compiled
	docs   map[string]any                // $id (no fragment) → parsed JSON, for rule lookup
	ids    map[string]string             // name → $id
	names  []string                      // sorted
}

var (
	loadOnce sync.Once
	loaded   *registry
	loadErr  error
)

// load compiles every embedded *.json once. A broken schema is a build
// defect, so it is reported by every validation rather than by a panic.
func load() (*registry, error) {
	loadOnce.Do(func() { loaded, loadErr = compileAll(files) })
	return loaded, loadErr
}

// compileAll compiles every *.json in fsys. References are resolved among
// the embedded files only: LoadURL refuses everything else, so there is no
// network or file access.
func compileAll(fsys fs.FS) (*registry, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.LoadURL = func(s string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("schema: %s is not an embedded schema (no network or file access)", s)
	}
	r := &registry{byName: map[string]*jsonschema.Schema{}, docs: map[string]any{}, ids: map[string]string{}}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".json" {
			return err
		}
		raw, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		var doc any
		if err := json.Unmarshal(raw, &doc); err != nil {
			return fmt.Errorf("schema: %s: %w", p, err)
		}
		id := BaseURL + p
		if m, ok := doc.(map[string]any); ok {
			if s, ok := m["$id"].(string); ok && s != "" {
				id = s
			}
		}
		id, _, _ = strings.Cut(id, "#")
		if err := c.AddResource(id, bytes.NewReader(raw)); err != nil {
			return fmt.Errorf("schema: %s: %w", p, err)
		}
		name := strings.TrimSuffix(p, ".json")
		r.docs[id] = doc
		r.ids[name] = id
		r.names = append(r.names, name)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, name := range r.names {
		s, err := c.Compile(r.ids[name])
		if err != nil {
			return nil, fmt.Errorf("schema: compile %s: %w", name, err)
		}
		r.byName[name] = s
	}
	sort.Strings(r.names)
	return r, nil
}

// Names lists the name of every embedded schema, sorted: "c2s/hello",
// "http/qr", "s2c/any", "driver/profile", …; each is accepted by
// ValidateDocument.
func Names() []string {
	r, err := load()
	if err != nil {
		return nil
	}
	return append([]string(nil), r.names...)
}

// Check reports whether every embedded schema compiles. Programs may call it
// at start-up to fail fast; the validators report the same error otherwise.
func Check() error {
	_, err := load()
	return err
}
