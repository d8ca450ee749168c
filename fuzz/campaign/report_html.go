package campaign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"os"
	"sort"

	"github.com/loomi-lmp/lmpkit/internal/htmlreport"
	"github.com/loomi-lmp/lmpkit/suites/rules"
)

// WriteHTML writes the campaign as one self-contained HTML page: its
// figures, the server's responses, and each finding with the rule it
// breaks and its shrunk reproducer (read from the file it was saved to),
// filtered in the page by rule.
func (r *Report) WriteHTML(w io.Writer) error {
	data := struct {
		R         *Report
		Findings  []htmlFinding
		Responses []htmlCount
	}{R: r}
	for _, f := range r.Findings {
		hf := htmlFinding{Finding: f}
		if rule, ok := rules.Lookup(f.Rule); ok {
			hf.RuleText = rule.Text
		}
		if f.Reproducer != "" {
			if raw, err := os.ReadFile(f.Reproducer); err != nil {
				hf.ReproducerErr = err.Error()
			} else {
				var pretty bytes.Buffer
				if json.Indent(&pretty, raw, "", "  ") == nil {
					raw = pretty.Bytes()
				}
				hf.ReproducerJSON = string(raw)
			}
		}
		data.Findings = append(data.Findings, hf)
	}
	for k, n := range r.Responses {
		data.Responses = append(data.Responses, htmlCount{k, n})
	}
	sort.Slice(data.Responses, func(i, j int) bool { return data.Responses[i].N > data.Responses[j].N })
	var body bytes.Buffer
	if err := fuzzHTML.Execute(&body, data); err != nil {
		return err
	}
	return htmlreport.Write(w, htmlreport.Page{
		Title: "lmp-check fuzz: " + r.URL, Verdicts: []string{"finding"},
		Body: template.HTML(body.String()), // rendered by html/template above
	})
}

// WriteHTMLFile writes the HTML report to path.
func (r *Report) WriteHTMLFile(path string) error { return writeFile(path, r.WriteHTML) }

// writeFile creates path and writes it with write.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

type htmlFinding struct {
	Finding
	RuleText       string
	ReproducerJSON string
	ReproducerErr  string
}

type htmlCount struct {
	Key string
	N   int64
}

var fuzzHTML = template.Must(template.New("fuzz").Funcs(template.FuncMap{
	"f1": func(v float64) string { return fmt.Sprintf("%.1f", v) },
}).Parse(`
<p id="result" class="verdict {{if .R.OK}}v-pass{{else}}v-fail{{end}}">{{if .R.OK}}No finding{{else}}{{len .R.Findings}} findings{{end}}</p>
<table id="figures"><caption>Campaign</caption><tbody>
<tr><th scope="row">seed</th><td>{{.R.Seed}}</td></tr>
<tr><th scope="row">connections / devices</th><td>{{.R.Conns}} / {{.R.Devices}}</td></tr>
<tr><th scope="row">started, elapsed</th><td>{{.R.StartedAt}}, {{f1 .R.ElapsedS}} s</td></tr>
<tr><th scope="row">episodes</th><td>{{.R.Episodes}}</td></tr>
<tr><th scope="row">frames sent / received</th><td>{{.R.FramesSent}} ({{f1 .R.FramesPerSecond}}/s) / {{.R.FramesReceived}}</td></tr>
<tr><th scope="row">monitor</th><td>{{.R.Monitor.Events}} events, last seq {{.R.Monitor.LastSeq}}, {{.R.Monitor.Reconnects}} reconnects</td></tr>
<tr><th scope="row">/health</th><td>{{.R.Health.Checks}} checks, {{.R.Health.Failures}} failures</td></tr>
<tr><th scope="row">duplicate findings</th><td>{{.R.DuplicateFindings}}</td></tr>
</tbody></table>
<h2>Findings</h2>
{{range .Findings}}<details class="item finding" id="{{.ID}}" data-verdict="finding" data-rules="{{.Rule}}" open>
<summary><span class="verdict v-finding">{{.ID}}</span> {{.Kind}} [{{.Rule}}] {{.Message}}</summary>
{{if .RuleText}}<p><strong>{{.Rule}}</strong>: {{.RuleText}}</p>{{end}}
<p class="muted">at {{f1 .At}} s{{if .Episode}}, in a {{.Episode}} episode{{end}}{{if .Reproducer}}; reproducer {{.Reproducer}}: {{.Frames}} frames, {{if .Shrunk}}shrunk{{else}}not shrunk{{end}}{{end}}</p>
{{if .ReproducerJSON}}<h3>Reproducer</h3><p>Replay it with <code>lmp-check fuzz --replay {{.Reproducer}} --url …</code></p><pre class="reproducer">{{.ReproducerJSON}}</pre>{{end}}
{{if .ReproducerErr}}<p class="v-fail">reproducer not readable: {{.ReproducerErr}}</p>{{end}}
</details>
{{else}}<p>None.</p>
{{end}}
<h2>Server responses</h2>
<table id="responses"><thead><tr><th scope="col">response</th><th scope="col">count</th></tr></thead><tbody>
{{range .Responses}}<tr><td><code>{{.Key}}</code></td><td class="n">{{.N}}</td></tr>{{end}}
</tbody></table>`))
