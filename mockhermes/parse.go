package mockhermes

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/loomi-lmp/lmpkit/hermes"
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

var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// ParseScenario parses and validates a scenario script. file names it in
// errors, which are ScriptErrors giving line and column. The YAML decoder
// reads the script into typed documents (scriptdoc.go), refusing unknown
// keys; the checks below turn them into a Scenario.
func ParseScenario(file string, src []byte) (*Scenario, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(src, &root); err != nil {
		return nil, syntaxError(file, err)
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 {
		return nil, ScriptErrors{{File: file, Line: 1, Msg: "empty script: expected a mapping with name and steps"}}
	}
	top := root.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, ScriptErrors{{File: file, Line: top.Line, Column: top.Column, Msg: "script must be a mapping, got " + kindName(top)}}
	}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	dec.KnownFields(true)
	var doc scriptDoc
	p := &parser{file: file}
	if err := dec.Decode(&doc); err != nil {
		p.decodeErrors(err)
	}
	// What failed to decode is missing from doc: the checks that a key is
	// there would only repeat the decoder's errors.
	sc := p.scenario(&doc, top, len(p.errs) == 0)
	if len(p.errs) == 0 {
		// The published schema is the contract for other tools; the Go
		// checks above give the better messages, this catches any drift.
		p.errs = append(p.errs, schemaErrors(file, top)...)
	}
	if len(p.errs) > 0 {
		slices.SortStableFunc(p.errs, func(a, b *ScriptError) int { return a.Line - b.Line })
		return nil, p.errs[:min(len(p.errs), maxScriptErrors)]
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

func (p *parser) errAt(line, col int, format string, args ...any) {
	p.errs = append(p.errs, &ScriptError{File: p.file, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)})
}

func errf[T any](p *parser, a at[T], format string, args ...any) {
	p.errAt(a.Line, a.Column, format, args...)
}

var (
	unknownField = regexp.MustCompile(`^field (\S+) not found in type mockhermes\.(\w+)`)
	duplicateKey = regexp.MustCompile(`^mapping key "(.*)" already defined at line (\d+)$`)
	cannotDecode = regexp.MustCompile("^cannot unmarshal (!!\\w+)(?: `([^`]*)`)? into (.+)$")
	docNames     = map[string]string{"scriptDoc": "script", "stepFields": "step", "argDoc": "argument", "faultsDoc": "faults", "toolDoc": "tool call", "approvalDoc": "approval", "notifyDoc": "notify"}
	goTypeNames  = map[string]string{"string": "a string", "int64": "an integer", "bool": "true or false"}
)

// decodeErrors turns the YAML decoder's errors into ScriptErrors, worded
// for a script's author.
func (p *parser) decodeErrors(err error) {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		p.errAt(1, 0, "%v", err)
		return
	}
	for _, e := range te.Errors {
		line, msg := 1, e
		if m := yamlLine.FindStringSubmatch(e); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = m[2]
		}
		if m := unknownField.FindStringSubmatch(msg); m != nil {
			msg = fmt.Sprintf("%s: unknown key %q", docNames[m[2]], m[1])
		} else if m := duplicateKey.FindStringSubmatch(msg); m != nil {
			msg = fmt.Sprintf("duplicate key %q (first at line %s)", m[1], m[2])
		} else if m := cannotDecode.FindStringSubmatch(msg); m != nil {
			want, ok := goTypeNames[m[3]]
			switch {
			case ok:
			case strings.HasPrefix(m[3], "[]"):
				want = "a list"
			default:
				want = "a mapping"
			}
			msg = fmt.Sprintf("expected %s, got %s", want, tagName(m[1], m[2]))
		}
		p.errAt(line, 0, "%s", msg)
	}
}

// str is a string value, which YAML must spell as one: a number or a
// boolean where a string belongs is a mistake, not a conversion.
func (p *parser) str(a at[string], what string) string {
	if a.Set && a.Tag != "!!str" {
		errf(p, a, "%s must be a string, got %s", what, tagName(a.Tag, a.V))
		return ""
	}
	return a.V
}

func (p *parser) atLeast(a at[int64], what string, min int64) int64 {
	if a.Set && a.V < min {
		errf(p, a, "%s must be an integer of at least %d, got %d", what, min, a.V)
		return 0
	}
	return a.V
}

// duration reads a Go duration ("150ms", "2s") or an ${arg} reference.
func (p *parser) duration(a at[string], what string) string {
	s := p.str(a, what)
	if s == "" || strings.Contains(s, "${") {
		return s
	}
	if d, err := time.ParseDuration(s); err != nil || d < 0 {
		errf(p, a, "%s must be a duration such as 150ms or 2s, got %q", what, s)
	}
	return s
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

func (p *parser) scenario(d *scriptDoc, top *yaml.Node, complete bool) *Scenario {
	sc := &Scenario{
		Name: p.str(d.Name, "name"), Description: p.str(d.Description, "description"), Usage: p.str(d.Usage, "usage"),
		Model: p.str(d.Model, "model"), Provider: p.str(d.Provider, "provider"),
		Args: p.args(d.Args), Faults: p.faults(d.Faults.V), Steps: p.steps(d.Steps.V),
	}
	switch {
	case !d.Name.Set && complete || sc.Name == "" && d.Name.Tag == "!!str":
		p.errAt(lineOr(d.Name, top.Line), 0, "script needs a name")
	case sc.Name != "" && !nameRE.MatchString(sc.Name):
		errf(p, d.Name, "name %q must be lower case letters, digits, _ or -, starting with a letter", sc.Name)
	}
	if !d.Steps.Set && complete {
		p.errAt(top.Line, top.Column, "script needs steps")
	} else if d.Steps.Tag == "!!seq" && d.Steps.Items == 0 {
		errf(p, d.Steps, "steps must not be empty")
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

func lineOr[T any](a at[T], line int) int {
	if a.Set {
		return a.Line
	}
	return line
}

func (p *parser) args(list at[[]at[argDoc]]) []ArgSpec {
	var out []ArgSpec
	seen := map[string]bool{}
	for i, e := range list.V {
		d := e.V
		a := ArgSpec{Name: p.str(d.Name, "arg name"), Type: "string", Line: e.Line, Default: d.Default.V}
		if d.Type.Set {
			a.Type = p.str(d.Type, "arg type")
			if a.Type != "int" && a.Type != "string" && a.Type != "text" && a.Type != "duration" {
				errf(p, d.Type, "arg type must be int, string, text or duration, got %q", a.Type)
			}
		}
		if d.Default.Set && (d.Default.Tag == "!!null" || d.Default.Tag == "!!map" || d.Default.Tag == "!!seq") {
			errf(p, d.Default, "arg default must be a scalar, got %s", tagName(d.Default.Tag, d.Default.V))
		}
		if d.Min.Set {
			a.Min = &d.Min.V
		}
		if d.Max.Set {
			a.Max = &d.Max.V
		}
		if !nameRE.MatchString(a.Name) || strings.Contains(a.Name, "-") {
			errf(p, e, "args[%d] needs a name of lower case letters, digits or _", i)
		}
		if seen[a.Name] {
			errf(p, e, "args[%d]: duplicate argument %q", i, a.Name)
		}
		seen[a.Name] = true
		if a.Type != "int" && (d.Min.Set || d.Max.Set) {
			errf(p, e, "args[%d]: min and max apply to int arguments only", i)
		}
		if a.Type == "int" {
			if _, err := strconv.ParseInt(a.Default, 10, 64); err != nil {
				errf(p, e, "args[%d]: an int argument needs an integer default", i)
			}
		}
		if _, err := time.ParseDuration(a.Default); a.Type == "duration" && err != nil {
			errf(p, e, "args[%d]: a duration argument needs a duration default such as 0s", i)
		}
		if a.Type == "text" && i != len(list.V)-1 {
			errf(p, e, "args[%d]: a text argument takes the rest of the line, so it must be last", i)
		}
		out = append(out, a)
	}
	return out
}

func (p *parser) faults(d faultsDoc) Faults {
	return Faults{Reorder: d.Reorder.V, DropEvery: int(p.atLeast(d.DropEvery, "faults.drop_every", 0)),
		Duplicate: d.Duplicate.V, Interleave: d.Interleave.V}
}

func (p *parser) steps(docs []stepDoc) []Step {
	out := make([]Step, 0, len(docs))
	for _, d := range docs {
		out = append(out, p.step(d))
	}
	return out
}

// modifier is a key a step may carry besides its action.
type modifier struct {
	key          string
	set          bool
	line, column int
}

func mod[T any](key string, a at[T]) modifier { return modifier{key, a.Set, a.Line, a.Column} }

// step checks one step: its action's value and the modifiers that action
// allows.
func (p *parser) step(d stepDoc) Step {
	f := d.stepFields
	s := Step{Kind: d.Kind, Line: d.Line}
	allowed := map[string]bool{}
	switch s.Kind {
	case StepStream, StepReasoning:
		text := f.Stream
		if s.Kind == StepReasoning {
			text = f.Reasoning
		}
		s.Text = p.str(text, s.Kind)
		s.Chunk = 8
		if f.Chunk.Set {
			s.Chunk = int(p.atLeast(f.Chunk, "chunk", 1))
		}
		if f.Every.Set {
			s.Every = p.duration(f.Every, "every")
		}
		allowed["chunk"], allowed["every"] = true, true
	case StepInterim:
		s.Text = p.str(f.Interim, "interim")
		s.AlreadyStreamed = f.AlreadyStreamed.V
		allowed["already_streamed"] = true
	case StepFail, StepRetry:
		msg := f.Fail
		if s.Kind == StepRetry {
			msg = f.Retry
		}
		s.Text = p.str(msg, s.Kind)
		if s.Text == "" && msg.Tag == "!!str" {
			errf(p, msg, "%s needs a non-empty error message", s.Kind)
		}
	case StepWait:
		s.Duration = p.duration(f.Wait, "wait")
	case StepTools:
		s.Tools = p.tools(f.Tools)
		s.Parallel = f.Parallel.V
		allowed["parallel"] = true
	case StepApproval:
		s.Approval = p.approval(f.Approval)
		s.Branches = map[string][]Step{}
		for b, steps := range map[string]at[[]stepDoc]{BranchGranted: f.Granted, BranchDenied: f.Denied, BranchTimeout: f.Timeout, BranchCancelled: f.Cancelled} {
			if steps.Set {
				s.Branches[b] = p.steps(steps.V)
			}
			allowed[b] = true
		}
	case StepNotify:
		s.Notify = p.notify(f.Notify)
	case StepRepeat:
		s.Times = p.times(f.Repeat)
		if f.For.Set {
			s.For = p.duration(f.For, "for")
		}
		if f.Steps.Set {
			s.Steps = p.steps(f.Steps.V)
		} else {
			p.errAt(d.Line, 0, "repeat needs steps")
		}
		allowed["for"], allowed["steps"] = true, true
	case StepHook:
		s.HookName = p.str(f.Hook, "hook")
		if s.HookName == "" && f.Hook.Tag == "!!str" {
			errf(p, f.Hook, "hook needs a hook name")
		} else if s.HookName != "" && !strings.Contains(s.HookName, "${") && !slices.Contains(hermes.KnownHooks(), s.HookName) {
			errf(p, f.Hook, "hook %q is not one of Hermes' hooks (%s)", s.HookName, strings.Join(hermes.KnownHooks(), ", "))
		}
		s.Kwargs = map[string]any{}
		if f.Kwargs.V != nil {
			s.Kwargs = f.Kwargs.V
		}
		allowed["kwargs"] = true
	}
	for _, m := range []modifier{mod("chunk", f.Chunk), mod("every", f.Every), mod("already_streamed", f.AlreadyStreamed),
		mod("parallel", f.Parallel), mod(BranchGranted, f.Granted), mod(BranchDenied, f.Denied), mod(BranchTimeout, f.Timeout),
		mod(BranchCancelled, f.Cancelled), mod("for", f.For), mod("steps", f.Steps), mod("kwargs", f.Kwargs)} {
		if m.set && !allowed[m.key] {
			p.errAt(m.line, m.column, "%s step: unknown key %q", s.Kind, m.key)
		}
	}
	return s
}

func (p *parser) times(a at[string]) string {
	if a.Tag == "!!int" {
		v, err := strconv.ParseInt(a.V, 0, 64)
		if err != nil || v < 0 {
			errf(p, a, "repeat must be an integer of at least 0, got %s", a.V)
		} else if v > MaxRepeat {
			errf(p, a, "repeat count %d is over the limit of %d", v, MaxRepeat)
		}
		return strconv.FormatInt(v, 10)
	}
	s := p.str(a, "repeat")
	if s != "forever" && !argRef.MatchString(s) && a.Tag == "!!str" {
		errf(p, a, "repeat must be a count, an ${arg} reference or forever, got %q", s)
	}
	return s
}

func (p *parser) tools(list at[[]at[toolDoc]]) []ToolCall {
	if list.Tag != "!!seq" || list.Items == 0 {
		errf(p, list, "tools must be a non-empty list of tool calls")
		return nil
	}
	var out []ToolCall
	for i, e := range list.V {
		d := e.V
		what := fmt.Sprintf("tools[%d]", i)
		t := ToolCall{Name: p.str(d.Name, what+".name"), Args: map[string]any{}, Result: p.str(d.Result, what+".result"),
			DurationMS: 10, Status: "ok", ErrorType: p.str(d.ErrorType, what+".error_type"),
			ErrorMessage: p.str(d.ErrorMessage, what+".error_message"), Bridge: d.Bridge.V}
		if d.Args.V != nil {
			t.Args = d.Args.V
		}
		if d.DurationMS.Set {
			t.DurationMS = p.atLeast(d.DurationMS, what+".duration_ms", 0)
		}
		if d.Status.Set {
			t.Status = p.str(d.Status, what+".status")
			if t.Status != "ok" && t.Status != "error" && t.Status != "blocked" {
				errf(p, d.Status, "%s.status must be ok, error or blocked, got %q", what, t.Status)
			}
		}
		if t.Name == "" {
			errf(p, e, "%s needs a name", what)
		}
		out = append(out, t)
	}
	return out
}

func (p *parser) approval(a at[approvalDoc]) *ApprovalStep {
	d := a.V
	s := &ApprovalStep{Tool: "terminal", AllowPermanent: true, AllowSession: true,
		Command: p.str(d.Command, "approval.command"), Description: p.str(d.Description, "approval.description"),
		PatternKey: p.str(d.PatternKey, "approval.pattern_key"), SmartDenied: d.SmartDenied.V,
		Timeout: p.duration(d.Timeout, "approval.timeout")}
	if d.Tool.Set {
		s.Tool = p.str(d.Tool, "approval.tool")
	}
	if d.AllowPermanent.Set {
		s.AllowPermanent = d.AllowPermanent.V
	}
	if d.AllowSession.Set {
		s.AllowSession = d.AllowSession.V
	}
	if d.Smart.Set {
		s.Smart = p.str(d.Smart, "approval.smart")
		if s.Smart != "approve" && s.Smart != "deny" {
			errf(p, d.Smart, "approval.smart must be approve or deny, got %q", s.Smart)
		}
	}
	if d.Coalesced.Set {
		s.Coalesced = int(p.atLeast(d.Coalesced, "approval.coalesced", 0))
		if s.Coalesced > maxCoalesced {
			errf(p, d.Coalesced, "approval.coalesced must be at most %d", maxCoalesced)
		}
	}
	if a.Tag == "!!map" && s.Command == "" {
		errf(p, a, "approval needs a command")
	}
	return s
}

// maxCoalesced bounds the identical calls of one approval step.
const maxCoalesced = 16

// notify checks a notify step. Its older keys go into the metadata.
func (p *parser) notify(a at[notifyDoc]) *NotifyStep {
	d := a.V
	ns := &NotifyStep{Text: p.str(d.Text, "notify.text"), Metadata: map[string]any{}}
	if d.Metadata.V != nil {
		ns.Metadata = d.Metadata.V
	}
	for key, v := range map[string]at[string]{"title": d.Title, "source": d.Source} {
		if v.Set {
			ns.Metadata[key] = p.str(v, "notify."+key)
		}
	}
	if d.Category.Set {
		c := p.str(d.Category, "notify.category")
		if c != "result" && c != "diagnostic" {
			errf(p, d.Category, "notify.category must be result or diagnostic, got %q", c)
		}
		ns.Metadata["category"] = c
	}
	if d.RequiresAttention.Set {
		ns.Metadata["requires_attention"] = d.RequiresAttention.V
	}
	if a.Tag == "!!map" && ns.Text == "" {
		errf(p, a, "notify needs a text")
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
				p.errAt(line, 0, "unknown reference ${%s}: declare it under args", m[1])
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
