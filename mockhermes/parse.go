package mockhermes

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// ScriptError is a problem in a scenario script, at a line and column.
type ScriptError struct {
	File   string
	Line   int
	Column int
	Msg    string
}

func (e *ScriptError) Error() string {
	if e.Column > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// ScriptErrors is every problem found in one script, in file order.
type ScriptErrors []*ScriptError

func (es ScriptErrors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// maxScriptErrors bounds how many problems one load reports.
const maxScriptErrors = 20

func parseScenarioFile(path string) (*Scenario, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("mockhermes: load script: %w", err)
	}
	return ParseScenario(path, src)
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// ParseScenario parses and validates a scenario script. file names it in
// errors, which are ScriptErrors giving line and column.
func ParseScenario(file string, src []byte) (*Scenario, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, syntaxError(file, err)
	}
	p := &parser{file: file}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, ScriptErrors{{File: file, Line: 1, Msg: "empty script: expected a mapping with name and steps"}}
	}
	sc := p.scenario(doc.Content[0])
	if len(p.errs) == 0 {
		// The published schema is the contract for other tools; the Go
		// checks above give the better messages, this catches any drift.
		p.errs = append(p.errs, schemaErrors(file, doc.Content[0])...)
	}
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	sc.File = file
	return sc, nil
}

func syntaxError(file string, err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		err = errors.New(te.Errors[0])
	}
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return ScriptErrors{{File: file, Line: line, Msg: "YAML syntax: " + m[2]}}
	}
	return ScriptErrors{{File: file, Line: 1, Msg: "YAML syntax: " + strings.TrimPrefix(msg, "yaml: ")}}
}

type parser struct {
	file string
	errs ScriptErrors
}

func (p *parser) errf(n *yaml.Node, format string, args ...any) {
	if len(p.errs) >= maxScriptErrors {
		return
	}
	p.errs = append(p.errs, &ScriptError{File: p.file, Line: n.Line, Column: n.Column, Msg: fmt.Sprintf(format, args...)})
}

// fields walks a mapping node, calling f for each key; it reports keys f
// does not know, and duplicates.
func (p *parser) fields(n *yaml.Node, what string, f func(key string, k, v *yaml.Node) bool) {
	if n.Kind != yaml.MappingNode {
		p.errf(n, "%s must be a mapping, got %s", what, kindName(n))
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if seen[k.Value] {
			p.errf(k, "%s: duplicate key %q", what, k.Value)
			continue
		}
		seen[k.Value] = true
		if !f(k.Value, k, v) {
			p.errf(k, "%s: unknown key %q", what, k.Value)
		}
	}
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	switch n.Tag {
	case "!!null":
		return "nothing"
	case "!!int", "!!float":
		return "a number " + n.Value
	case "!!bool":
		return "a boolean " + n.Value
	}
	return fmt.Sprintf("%q", n.Value)
}

func (p *parser) str(n *yaml.Node, what string) string {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		p.errf(n, "%s must be a string, got %s", what, kindName(n))
		return ""
	}
	return n.Value
}

func (p *parser) boolean(n *yaml.Node, what string) bool {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		p.errf(n, "%s must be true or false, got %s", what, kindName(n))
		return false
	}
	return n.Value == "true"
}

func (p *parser) integer(n *yaml.Node, what string, min int64) int64 {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		p.errf(n, "%s must be an integer, got %s", what, kindName(n))
		return 0
	}
	v, err := strconv.ParseInt(n.Value, 0, 64)
	if err != nil || v < min {
		p.errf(n, "%s must be an integer of at least %d, got %s", what, min, n.Value)
		return 0
	}
	return v
}

// duration reads a Go duration ("150ms", "2s") or an ${arg} reference.
func (p *parser) duration(n *yaml.Node, what string) string {
	s := p.str(n, what)
	if s == "" || strings.Contains(s, "${") {
		return s
	}
	if d, err := time.ParseDuration(s); err != nil || d < 0 {
		p.errf(n, "%s must be a duration such as 150ms or 2s, got %q", what, s)
	}
	return s
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

func (p *parser) scenario(n *yaml.Node) *Scenario {
	sc := &Scenario{}
	var stepsNode *yaml.Node
	var nameNode = n
	p.fields(n, "script", func(key string, k, v *yaml.Node) bool {
		switch key {
		case "name":
			sc.Name, nameNode = p.str(v, "name"), v
		case "description":
			sc.Description = p.str(v, "description")
		case "usage":
			sc.Usage = p.str(v, "usage")
		case "model":
			sc.Model = p.str(v, "model")
		case "provider":
			sc.Provider = p.str(v, "provider")
		case "args":
			sc.Args = p.args(v)
		case "faults":
			sc.Faults = p.faults(v)
		case "steps":
			stepsNode = v
			sc.Steps = p.steps(v, "steps")
		default:
			return false
		}
		return true
	})
	if n.Kind != yaml.MappingNode {
		return sc
	}
	if sc.Name == "" {
		p.errf(nameNode, "script needs a name")
	} else if !nameRE.MatchString(sc.Name) {
		p.errf(nameNode, "name %q must be lower case letters, digits, _ or -, starting with a letter", sc.Name)
	}
	if stepsNode == nil {
		p.errf(n, "script needs steps")
	} else if len(sc.Steps) == 0 && stepsNode.Kind == yaml.SequenceNode {
		p.errf(stepsNode, "steps must not be empty")
	}
	if sc.Usage == "" {
		u := []string{sc.Name}
		for _, a := range sc.Args {
			u = append(u, "["+a.Name+"]")
		}
		sc.Usage = strings.Join(u, " ")
	}
	p.checkRefs(sc, sc.Steps)
	return sc
}

func (p *parser) args(n *yaml.Node) []ArgSpec {
	if n.Kind != yaml.SequenceNode {
		p.errf(n, "args must be a list, got %s", kindName(n))
		return nil
	}
	var out []ArgSpec
	seen := map[string]bool{}
	for i, e := range n.Content {
		a := ArgSpec{Type: "string", Line: e.Line}
		var minNode, maxNode *yaml.Node
		p.fields(e, fmt.Sprintf("args[%d]", i), func(key string, k, v *yaml.Node) bool {
			switch key {
			case "name":
				a.Name = p.str(v, "arg name")
			case "type":
				a.Type = p.str(v, "arg type")
				if a.Type != "int" && a.Type != "string" && a.Type != "text" && a.Type != "duration" {
					p.errf(v, "arg type must be int, string, text or duration, got %q", a.Type)
				}
			case "default":
				if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
					p.errf(v, "arg default must be a scalar, got %s", kindName(v))
				}
				a.Default = v.Value
			case "min":
				x := p.integer(v, "arg min", -1<<62)
				a.Min, minNode = &x, v
			case "max":
				x := p.integer(v, "arg max", -1<<62)
				a.Max, maxNode = &x, v
			default:
				return false
			}
			return true
		})
		if e.Kind != yaml.MappingNode {
			continue
		}
		if !nameRE.MatchString(strings.ReplaceAll(a.Name, "-", "_")) || strings.Contains(a.Name, "-") {
			p.errf(e, "args[%d] needs a name of lower case letters, digits or _", i)
		}
		if seen[a.Name] {
			p.errf(e, "args[%d]: duplicate argument %q", i, a.Name)
		}
		seen[a.Name] = true
		if a.Type != "int" && (minNode != nil || maxNode != nil) {
			p.errf(e, "args[%d]: min and max apply to int arguments only", i)
		}
		if a.Type == "int" {
			if _, err := strconv.ParseInt(a.Default, 10, 64); err != nil {
				p.errf(e, "args[%d]: an int argument needs an integer default", i)
			}
		}
		if _, err := time.ParseDuration(a.Default); a.Type == "duration" && err != nil {
			p.errf(e, "args[%d]: a duration argument needs a duration default such as 0s", i)
		}
		if a.Type == "text" && i != len(n.Content)-1 {
			p.errf(e, "args[%d]: a text argument takes the rest of the line, so it must be last", i)
		}
		out = append(out, a)
	}
	return out
}

func (p *parser) faults(n *yaml.Node) Faults {
	var f Faults
	p.fields(n, "faults", func(key string, k, v *yaml.Node) bool {
		switch key {
		case "reorder":
			f.Reorder = p.boolean(v, "faults.reorder")
		case "drop_every":
			f.DropEvery = int(p.integer(v, "faults.drop_every", 0))
		case "duplicate":
			f.Duplicate = p.boolean(v, "faults.duplicate")
		case "interleave":
			f.Interleave = p.boolean(v, "faults.interleave")
		default:
			return false
		}
		return true
	})
	return f
}

func (p *parser) steps(n *yaml.Node, what string) []Step {
	if n.Kind != yaml.SequenceNode {
		p.errf(n, "%s must be a list of steps, got %s", what, kindName(n))
		return nil
	}
	out := make([]Step, 0, len(n.Content))
	for _, e := range n.Content {
		out = append(out, p.step(e))
	}
	return out
}

// step reads one step: a mapping with exactly one action key and the
// modifiers that action allows.
func (p *parser) step(n *yaml.Node) Step {
	s := Step{Line: n.Line}
	if n.Kind != yaml.MappingNode {
		p.errf(n, "a step must be a mapping with one of %s, got %s", strings.Join(stepKinds, ", "), kindName(n))
		return s
	}
	var kinds []string
	vals := map[string]*yaml.Node{}
	keys := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if _, dup := vals[k.Value]; dup {
			p.errf(k, "step: duplicate key %q", k.Value)
			continue
		}
		vals[k.Value], keys[k.Value] = n.Content[i+1], k
		for _, kind := range stepKinds {
			if k.Value == kind {
				kinds = append(kinds, kind)
			}
		}
	}
	switch len(kinds) {
	case 0:
		p.errf(n, "step has no action: expected one of %s", strings.Join(stepKinds, ", "))
		return s
	case 1:
	default:
		p.errf(keys[kinds[1]], "step has two actions, %s and %s: split it into two steps", kinds[0], kinds[1])
		return s
	}
	s.Kind = kinds[0]
	v := vals[s.Kind]
	allowed := map[string]bool{s.Kind: true}
	switch s.Kind {
	case StepStream, StepReasoning:
		s.Text = p.str(v, s.Kind)
		s.Chunk = 8
		if c, ok := vals["chunk"]; ok {
			s.Chunk = int(p.integer(c, "chunk", 1))
		}
		if e, ok := vals["every"]; ok {
			s.Every = p.duration(e, "every")
		}
		allowed["chunk"], allowed["every"] = true, true
	case StepInterim:
		s.Text = p.str(v, "interim")
		if a, ok := vals["already_streamed"]; ok {
			s.AlreadyStreamed = p.boolean(a, "already_streamed")
		}
		allowed["already_streamed"] = true
	case StepFail, StepRetry:
		s.Text = p.str(v, s.Kind)
		if s.Text == "" && v.Tag == "!!str" {
			p.errf(v, "%s needs a non-empty error message", s.Kind)
		}
	case StepWait:
		s.Duration = p.duration(v, "wait")
	case StepTools:
		s.Tools = p.tools(v)
		if pr, ok := vals["parallel"]; ok {
			s.Parallel = p.boolean(pr, "parallel")
		}
		allowed["parallel"] = true
	case StepApproval:
		s.Approval = p.approval(v)
		s.Branches = map[string][]Step{}
		for _, b := range []string{BranchGranted, BranchDenied, BranchTimeout, BranchCancelled} {
			if bn, ok := vals[b]; ok {
				s.Branches[b] = p.steps(bn, b)
			}
			allowed[b] = true
		}
	case StepNotify:
		s.Notify = p.notify(v)
	case StepRepeat:
		s.Times = p.times(v)
		if f, ok := vals["for"]; ok {
			s.For = p.duration(f, "for")
		}
		if st, ok := vals["steps"]; ok {
			s.Steps = p.steps(st, "repeat steps")
		} else {
			p.errf(n, "repeat needs steps")
		}
		allowed["for"], allowed["steps"] = true, true
	case StepHook:
		s.HookName = p.str(v, "hook")
		if s.HookName == "" && v.Tag == "!!str" {
			p.errf(v, "hook needs a hook name")
		} else if s.HookName != "" && !strings.Contains(s.HookName, "${") && !slices.Contains(KnownHooks(), s.HookName) {
			p.errf(v, "hook %q is not one of Hermes' hooks (%s)", s.HookName, strings.Join(KnownHooks(), ", "))
		}
		s.Kwargs = map[string]any{}
		if kw, ok := vals["kwargs"]; ok {
			if kw.Kind != yaml.MappingNode {
				p.errf(kw, "kwargs must be a mapping, got %s", kindName(kw))
			} else if err := kw.Decode(&s.Kwargs); err != nil {
				p.errf(kw, "kwargs: %v", err)
			}
		}
		allowed["kwargs"] = true
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if !allowed[k.Value] {
			p.errf(k, "%s step: unknown key %q", s.Kind, k.Value)
		}
	}
	return s
}

func (p *parser) times(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!int" {
		v := p.integer(n, "repeat", 0)
		if v > MaxRepeat {
			p.errf(n, "repeat count %d is over the limit of %d", v, MaxRepeat)
		}
		return strconv.FormatInt(v, 10)
	}
	s := p.str(n, "repeat")
	if s != "forever" && !argRef.MatchString(s) && n.Tag == "!!str" {
		p.errf(n, "repeat must be a count, an ${arg} reference or forever, got %q", s)
	}
	return s
}

func (p *parser) tools(n *yaml.Node) []ToolCall {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		p.errf(n, "tools must be a non-empty list of tool calls, got %s", kindName(n))
		return nil
	}
	var out []ToolCall
	for i, e := range n.Content {
		t := ToolCall{Status: "ok", DurationMS: 10, Args: map[string]any{}}
		what := fmt.Sprintf("tools[%d]", i)
		p.fields(e, what, func(key string, k, v *yaml.Node) bool {
			switch key {
			case "name":
				t.Name = p.str(v, what+".name")
			case "args":
				if v.Kind != yaml.MappingNode {
					p.errf(v, "%s.args must be a mapping, got %s", what, kindName(v))
				} else if err := v.Decode(&t.Args); err != nil {
					p.errf(v, "%s.args: %v", what, err)
				}
			case "result":
				t.Result = p.str(v, what+".result")
			case "duration_ms":
				t.DurationMS = p.integer(v, what+".duration_ms", 0)
			case "status":
				t.Status = p.str(v, what+".status")
				if t.Status != "ok" && t.Status != "error" && t.Status != "blocked" {
					p.errf(v, "%s.status must be ok, error or blocked, got %q", what, t.Status)
				}
			case "error_type":
				t.ErrorType = p.str(v, what+".error_type")
			case "error_message":
				t.ErrorMessage = p.str(v, what+".error_message")
			case "bridge":
				t.Bridge = p.boolean(v, what+".bridge")
			default:
				return false
			}
			return true
		})
		if e.Kind == yaml.MappingNode && t.Name == "" {
			p.errf(e, "%s needs a name", what)
		}
		out = append(out, t)
	}
	return out
}

func (p *parser) approval(n *yaml.Node) *ApprovalStep {
	a := &ApprovalStep{Tool: "terminal", AllowPermanent: true, AllowSession: true}
	p.fields(n, "approval", func(key string, k, v *yaml.Node) bool {
		switch key {
		case "tool":
			a.Tool = p.str(v, "approval.tool")
		case "command":
			a.Command = p.str(v, "approval.command")
		case "description":
			a.Description = p.str(v, "approval.description")
		case "pattern_key":
			a.PatternKey = p.str(v, "approval.pattern_key")
		case "allow_permanent":
			a.AllowPermanent = p.boolean(v, "approval.allow_permanent")
		case "allow_session":
			a.AllowSession = p.boolean(v, "approval.allow_session")
		case "smart_denied":
			a.SmartDenied = p.boolean(v, "approval.smart_denied")
		case "timeout":
			a.Timeout = p.duration(v, "approval.timeout")
		case "smart":
			a.Smart = p.str(v, "approval.smart")
			if a.Smart != "approve" && a.Smart != "deny" {
				p.errf(v, "approval.smart must be approve or deny, got %q", a.Smart)
			}
		case "coalesced":
			a.Coalesced = int(p.integer(v, "approval.coalesced", 0))
			if a.Coalesced > maxCoalesced {
				p.errf(v, "approval.coalesced must be at most %d", maxCoalesced)
			}
		default:
			return false
		}
		return true
	})
	if n.Kind == yaml.MappingNode && a.Command == "" {
		p.errf(n, "approval needs a command")
	}
	return a
}

// maxCoalesced bounds the identical calls of one approval step.
const maxCoalesced = 16

// notify reads a notify step. category, title, source and
// requires_attention are accepted for older scripts and passed in the
// metadata, though Hermes itself never passes them.
func (p *parser) notify(n *yaml.Node) *NotifyStep {
	ns := &NotifyStep{Metadata: map[string]any{}}
	p.fields(n, "notify", func(key string, k, v *yaml.Node) bool {
		switch key {
		case "text":
			ns.Text = p.str(v, "notify.text")
		case "title", "source":
			ns.Metadata[key] = p.str(v, "notify."+key)
		case "category":
			c := p.str(v, "notify.category")
			if c != "result" && c != "diagnostic" {
				p.errf(v, "notify.category must be result or diagnostic, got %q", c)
			}
			ns.Metadata[key] = c
		case "requires_attention":
			ns.Metadata[key] = p.boolean(v, "notify.requires_attention")
		case "metadata":
			if v.Kind != yaml.MappingNode {
				p.errf(v, "notify.metadata must be a mapping, got %s", kindName(v))
			} else if err := v.Decode(&ns.Metadata); err != nil {
				p.errf(v, "notify.metadata: %v", err)
			}
		default:
			return false
		}
		return true
	})
	if n.Kind == yaml.MappingNode && ns.Text == "" {
		p.errf(n, "notify needs a text")
	}
	return ns
}

// checkRefs reports ${name} references to undeclared arguments.
func (p *parser) checkRefs(sc *Scenario, steps []Step) {
	known := map[string]bool{"args": true, "text": true, "task_id": true, "session_id": true, "turn_id": true, "iteration": true, "index": true}
	for _, a := range sc.Args {
		known[a.Name] = true
	}
	var walk func([]Step)
	check := func(line int, s string) {
		for _, m := range argRef.FindAllStringSubmatch(s, -1) {
			if !known[m[1]] {
				p.errf(&yaml.Node{Line: line}, "unknown reference ${%s}: declare it under args", m[1])
			}
		}
	}
	walk = func(steps []Step) {
		for _, s := range steps {
			for _, v := range []string{s.Text, s.Every, s.Duration, s.Times, s.For} {
				check(s.Line, v)
			}
			if s.Notify != nil {
				check(s.Line, s.Notify.Text)
			}
			if s.Approval != nil {
				check(s.Line, s.Approval.Command+s.Approval.Description+s.Approval.Timeout)
			}
			walk(s.Steps)
			for _, b := range s.Branches {
				walk(b)
			}
		}
	}
	walk(steps)
}
