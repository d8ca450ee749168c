package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"strings"

	"github.com/loomi-lmp/lmpkit/internal/htmlreport"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

// WriteHTML writes the --html-report: one self-contained page with a
// summary by section coloured by its worst verdict, then every spec with
// its rules' text, level, duration, failure message and transcripts as
// tables of frames, filtered in the page by verdict, level and rule.
func WriteHTML(w io.Writer, meta Meta, results []Result, sum Summary) error {
	data := htmlData{Meta: meta, Sum: sum, Verdicts: Verdicts}
	for _, section := range sections(results) {
		sec := htmlSection{Name: section, Counts: map[Verdict]int{}}
		for i, r := range results {
			if r.Section != section {
				continue
			}
			sec.Counts[r.Verdict]++
			sec.Total++
			sec.Specs = append(sec.Specs, htmlSpecOf(i, r))
		}
		sec.Worst = worst(sec.Counts)
		data.Sections = append(data.Sections, sec)
	}
	var body bytes.Buffer
	if err := htmlBody.Execute(&body, data); err != nil {
		return err
	}
	vs := make([]string, len(Verdicts))
	for i, v := range Verdicts {
		vs[i] = string(v)
	}
	ls := make([]string, len(rules.Levels))
	for i, l := range rules.Levels {
		ls[i] = string(l)
	}
	unselected := false
	for _, r := range results {
		unselected = unselected || r.Verdict == Skipped && r.Reason == notSelected
	}
	return htmlreport.Write(w, htmlreport.Page{
		Title: htmlTitle(meta), Verdicts: vs, Levels: ls, Unselected: unselected,
		Body: template.HTML(body.String()), // rendered by html/template above
	})
}

type htmlData struct {
	Meta     Meta
	Sum      Summary
	Verdicts []Verdict
	Sections []htmlSection
}

type htmlSection struct {
	Name   string
	Counts map[Verdict]int
	Total  int
	Worst  Verdict
	Specs  []htmlSpec
}

type htmlSpec struct {
	Anchor      string
	Result      Result
	Rules       []rules.Rule
	RuleIDs     string
	Failed      bool // its reason is a failure message
	Open        bool // shown unfolded: a failure or an observation
	Unselected  bool
	Transcripts []htmlTranscript
}

type htmlTranscript struct {
	Name   string
	Frames []htmlFrame
}

// htmlFrame is one line of a transcript.
type htmlFrame struct {
	At, Dir, DirClass, Type, Data string
}

// notSelected is the reason Results gives a spec the run's selection left
// out.
const notSelected = "not selected"

// worstFirst orders verdicts from the one a section is coloured by first.
var worstFirst = []Verdict{Fail, UnexpectedPass, NonStrict, Observed, ExpectedFailure, Pass, Skipped}

func worst(counts map[Verdict]int) Verdict {
	for _, v := range worstFirst {
		if counts[v] > 0 {
			return v
		}
	}
	return Skipped
}

func htmlSpecOf(i int, r Result) htmlSpec {
	s := htmlSpec{
		Anchor: fmt.Sprintf("spec-%d", i+1), Result: r, RuleIDs: strings.Join(r.Rules, " "),
		Failed:     r.Verdict == Fail || r.Verdict == NonStrict || r.Verdict == UnexpectedPass,
		Unselected: r.Verdict == Skipped && r.Reason == notSelected,
	}
	s.Open = s.Failed || r.Verdict == Observed
	for _, id := range r.Rules {
		if rule, ok := rules.Lookup(id); ok {
			s.Rules = append(s.Rules, rule)
		} else {
			s.Rules = append(s.Rules, rules.Rule{ID: id})
		}
	}
	for _, t := range r.Transcripts {
		s.Transcripts = append(s.Transcripts, htmlTranscript{Name: t.Name, Frames: transcriptFrames(t.Text)})
	}
	return s
}

// transcriptLine is a line of client.Transcript.String: the time since the
// connection opened, the direction, the frame.
var transcriptLine = regexp.MustCompile(`^\s*([0-9.]+s) (\S+) (.*)$`)

var dirClass = map[string]string{"→": "sent", "←": "received", "×": "closed"}

func transcriptFrames(text string) []htmlFrame {
	var out []htmlFrame
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		m := transcriptLine.FindStringSubmatch(line)
		if m == nil {
			if line != "" {
				out = append(out, htmlFrame{Data: line})
			}
			continue
		}
		f := htmlFrame{At: m[1], Dir: m[2], DirClass: dirClass[m[2]], Data: m[3]}
		var env struct {
			Type string `json:"type"`
		}
		if json.Unmarshal([]byte(m[3]), &env) == nil {
			f.Type = env.Type
		}
		out = append(out, f)
	}
	return out
}

var htmlBody = template.Must(template.New("body").Funcs(template.FuncMap{
	"count": func(m map[Verdict]int, v Verdict) int { return m[v] },
	"secs":  func(s float64) string { return fmt.Sprintf("%.1fs", s) },
}).Parse(`
<p>Timing profile: {{.Meta.Profile}}{{if .Meta.Strict}}; strict: SHOULD and INFO failures count{{end}}. Started {{.Meta.Started}}, took {{secs .Meta.Duration}}.</p>
<p id="result" class="verdict {{if .Sum.Conformant}}v-pass{{else}}v-fail{{end}}">{{if .Sum.Conformant}}Conformant{{else}}Not conformant{{end}}</p>
<table id="counts"><caption>Verdicts</caption><tr>{{range .Verdicts}}<th scope="col" class="v-{{.}}">{{.}}</th>{{end}}</tr>
<tr>{{$s := .Sum}}{{range .Verdicts}}<td class="n" data-count="{{.}}">{{count $s.Counts .}}</td>{{end}}</tr></table>
<p>Rules: {{len .Sum.RulesChecked}} of {{.Sum.RulesTotal}} checked{{if .Sum.RulesSkipped}}; {{len .Sum.RulesSkipped}} skipped ({{range .Sum.RulesSkipped}}{{.}} {{end}}){{end}}; {{len .Sum.RulesUncheckable}} not checkable from outside.</p>
<h2 id="summary">Summary by section</h2>
<table><thead><tr><th scope="col">Section</th>{{range .Verdicts}}<th scope="col" class="v-{{.}}">{{.}}</th>{{end}}</tr></thead><tbody>
{{$vs := .Verdicts}}{{range .Sections}}<tr class="sec-{{.Worst}}"><td><a href="#{{.Name}}">{{.Name}}</a></td>{{$c := .Counts}}{{range $vs}}<td class="n">{{count $c .}}</td>{{end}}</tr>
{{end}}</tbody></table>
{{range .Sections}}
<section aria-labelledby="h-{{.Name}}"><h2 id="{{.Name}}"><span id="h-{{.Name}}">{{.Name}}</span> <span class="muted">({{.Total}} specs)</span></h2>
{{range .Specs}}<details class="item spec" id="{{.Anchor}}" data-verdict="{{.Result.Verdict}}" data-level="{{.Result.Level}}" data-rules="{{.RuleIDs}}"{{if .Unselected}} data-unselected="true"{{end}}{{if .Open}} open{{end}}>
<summary><span class="verdict v-{{.Result.Verdict}}">{{.Result.Verdict}}</span> [{{.RuleIDs}}] {{.Result.Level}} {{.Result.Text}} <span class="muted">{{printf "%.2fs" .Result.Duration.Seconds}}</span></summary>
<dl>{{range .Rules}}<dt>{{.ID}}{{if .Level}} ({{.Level}}, {{.Section}}){{end}}</dt><dd>{{if .Text}}{{.Text}}{{else}}<span class="muted">not a rule of this kit</span>{{end}}</dd>{{end}}</dl>
{{if .Result.Reason}}<h3>{{if .Failed}}Failure{{else if .Open}}Observed{{else}}Reason{{end}}</h3><pre class="reason">{{.Result.Reason}}</pre>{{end}}
{{if .Result.Location}}<p class="muted">at {{.Result.Location}}</p>{{end}}
{{if .Result.Expectation}}<p>Expected to fail: {{.Result.Expectation.Reason}} {{.Result.Expectation.Link}}</p>{{end}}
{{range .Result.Notes}}<p><strong>{{.Name}}</strong>: {{.Text}}</p>{{end}}
{{range .Transcripts}}<table class="transcript"><caption>transcript of {{.Name}}</caption>
<thead><tr><th scope="col">time</th><th scope="col">dir</th><th scope="col">type</th><th scope="col">frame</th></tr></thead><tbody>
{{range .Frames}}<tr class="dir-{{.DirClass}}"><td class="n">{{.At}}</td><td>{{.Dir}}</td><td>{{.Type}}</td><td><code>{{.Data}}</code></td></tr>
{{end}}</tbody></table>
{{end}}</details>
{{end}}</section>
{{end}}`))

func htmlTitle(meta Meta) string {
	if meta.Subject == SubjectApp {
		return "lmp-check app: " + meta.Target
	}
	return "lmp-check: " + meta.Target
}
