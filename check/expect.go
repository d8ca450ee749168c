package check

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/loomi-lmp/lmpkit/suites/rules"
)

// Expectations is an expectations file: known failures of the target, each
// with the reason and a link to where it is tracked. A listed spec that
// fails is an expected failure and does not fail the run; a listed spec
// that passes is an unexpected pass, which does, so that the file stays
// honest.
//
//	expectations:
//	  - rule: T-4
//	    reason: pings every 30 s
//	    link: https://example.org/issues/12
//	  - spec: "a second hello gets a non-fatal already_authenticated"
//	    reason: re-authenticates instead
//	    link: https://example.org/issues/13
type Expectations struct {
	Entries []Expectation `yaml:"expectations" json:"expectations"`
}

// Expectation is one known failure. Exactly one of Rule and Spec is set:
// Rule matches every spec checking that rule ID; Spec matches specs whose
// text contains it.
type Expectation struct {
	Rule   string `yaml:"rule,omitempty" json:"rule,omitempty"`
	Spec   string `yaml:"spec,omitempty" json:"spec,omitempty"`
	Reason string `yaml:"reason" json:"reason"`
	Link   string `yaml:"link,omitempty" json:"link,omitempty"`
}

// LoadExpectations reads and checks an expectations file.
func LoadExpectations(path string) (*Expectations, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseExpectations(path, raw)
}

// ParseExpectations parses an expectations file; name is used in errors.
func ParseExpectations(name string, raw []byte) (*Expectations, error) {
	var e Expectations
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&e); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for i, x := range e.Entries {
		where := fmt.Sprintf("%s: expectation %d", name, i+1)
		switch {
		case (x.Rule == "") == (x.Spec == ""):
			return nil, fmt.Errorf("%s: give exactly one of rule and spec", where)
		case x.Rule != "":
			if err := rules.Validate(x.Rule); err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
		}
		if strings.TrimSpace(x.Reason) == "" {
			return nil, fmt.Errorf("%s: reason is required", where)
		}
	}
	return &e, nil
}

// Match returns the first expectation that covers r, or nil.
func (e *Expectations) Match(r Result) *Expectation {
	if e == nil {
		return nil
	}
	for i := range e.Entries {
		x := &e.Entries[i]
		if x.Rule != "" {
			for _, id := range r.Rules {
				if id == x.Rule {
					return x
				}
			}
		}
		if x.Spec != "" && (strings.Contains(r.Text, x.Spec) || strings.Contains(r.ID(), x.Spec)) {
			return x
		}
	}
	return nil
}
