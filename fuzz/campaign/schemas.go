package campaign

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// Schemas are the client frame schemas the generators walk: for each client
// frame type, the JSON Schema of its payload, with every $ref resolvable.
type Schemas struct {
	docs  map[string]map[string]any // file path → parsed document
	types map[string]node           // client frame type → payload schema
	names []string                  // sorted frame types, for determinism
}

// node is one schema location: the object and the file it sits in, for
// resolving relative $refs.
type node struct {
	file string
	m    map[string]any
}

// LoadSchemas reads the client frame schemas from fsys, laid out as the
// repository's schema directory: c2s/<type>.json, each defining its
// payload at #/$defs/payload, and the files they refer to.
func LoadSchemas(fsys fs.FS) (*Schemas, error) {
	s := &Schemas{docs: map[string]map[string]any{}, types: map[string]node{}}
	entries, err := fs.ReadDir(fsys, "c2s")
	if err != nil {
		return nil, fmt.Errorf("campaign: read client schemas: %w", err)
	}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || name == "any" || name == "envelope" {
			continue
		}
		doc, err := s.load(fsys, "c2s/"+e.Name())
		if err != nil {
			return nil, err
		}
		n, err := s.pointer(node{file: "c2s/" + e.Name(), m: doc}, "#/$defs/payload")
		if err != nil {
			return nil, fmt.Errorf("campaign: %s: %w", e.Name(), err)
		}
		s.types[name] = n
		s.names = append(s.names, name)
	}
	if len(s.types) == 0 {
		return nil, fmt.Errorf("campaign: no client frame schemas under c2s/")
	}
	// Load every referenced file now, so generation never touches fsys.
	for _, name := range s.names {
		if err := s.preload(fsys, s.types[name], 0); err != nil {
			return nil, err
		}
	}
	slices.Sort(s.names)
	return s, nil
}

// Types returns the client frame types the schemas define, sorted.
func (s *Schemas) Types() []string { return slices.Clone(s.names) }

func (s *Schemas) load(fsys fs.FS, file string) (map[string]any, error) {
	if d, ok := s.docs[file]; ok {
		return d, nil
	}
	raw, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, fmt.Errorf("campaign: schema %s: %w", file, err)
	}
	var d map[string]any
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("campaign: schema %s: %w", file, err)
	}
	s.docs[file] = d
	return d, nil
}

func (s *Schemas) preload(fsys fs.FS, n node, depth int) error {
	if depth > 32 {
		return nil
	}
	if ref, ok := n.m["$ref"].(string); ok {
		file, _, _ := strings.Cut(ref, "#")
		if file != "" {
			if _, err := s.load(fsys, path.Join(path.Dir(n.file), file)); err != nil {
				return err
			}
		}
		t, err := s.resolve(n, ref)
		if err != nil {
			return err
		}
		if err := s.preload(fsys, t, depth+1); err != nil {
			return err
		}
	}
	for _, k := range []string{"properties", "$defs"} {
		if props, ok := n.m[k].(map[string]any); ok {
			for _, v := range props {
				if m, ok := v.(map[string]any); ok {
					if err := s.preload(fsys, node{n.file, m}, depth+1); err != nil {
						return err
					}
				}
			}
		}
	}
	if m, ok := n.m["items"].(map[string]any); ok {
		return s.preload(fsys, node{n.file, m}, depth+1)
	}
	return nil
}

// resolve follows ref ("file#/pointer", "#/pointer" or "file") from n.
func (s *Schemas) resolve(n node, ref string) (node, error) {
	file, ptr, _ := strings.Cut(ref, "#")
	target := n.file
	if file != "" {
		target = path.Join(path.Dir(n.file), file)
	}
	doc, ok := s.docs[target]
	if !ok {
		return node{}, fmt.Errorf("$ref %q: %s not loaded", ref, target)
	}
	return s.pointer(node{file: target, m: doc}, "#"+ptr)
}

func (s *Schemas) pointer(n node, ptr string) (node, error) {
	ptr = strings.TrimPrefix(ptr, "#")
	cur := n.m
	for _, part := range strings.Split(strings.Trim(ptr, "/"), "/") {
		if part == "" {
			continue
		}
		next, ok := cur[part].(map[string]any)
		if !ok {
			return node{}, fmt.Errorf("pointer %q: no %q", ptr, part)
		}
		cur = next
	}
	return node{file: n.file, m: cur}, nil
}
