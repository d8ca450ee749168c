// Package htmlreport holds what lmp-check's HTML reports share: one
// self-contained page (style and script inline, nothing fetched) whose
// items are filtered by verdict, level and rule.
package htmlreport

import (
	_ "embed"
	"html/template"
	"io"
)

//go:embed report.css
var style string

//go:embed report.js
var script string

// Page is one report.
type Page struct {
	Title string
	// Verdicts and Levels are the values the filter offers; items carry
	// them in data-verdict and data-level, and their rule IDs, space
	// separated, in data-rules.
	Verdicts, Levels []string
	// Unselected says that some items carry data-unselected (specs the
	// run did not select): they are hidden until the reader asks for them.
	Unselected bool
	// Body is the report's content.
	Body template.HTML
}

var page = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>{{.Style}}</style>
</head>
<body>
<header><h1>{{.Title}}</h1></header>
<form id="filters" role="search" aria-label="Filter the report">
  <fieldset><legend>Verdict</legend>
  {{range .Verdicts}}<label><input type="checkbox" data-filter="verdict" value="{{.}}" checked> <span class="v-{{.}}">{{.}}</span></label>
  {{end}}</fieldset>
  {{if .Levels}}<fieldset><legend>Level</legend>
  {{range .Levels}}<label><input type="checkbox" data-filter="level" value="{{.}}" checked> {{.}}</label>
  {{end}}</fieldset>{{end}}
  {{if .Unselected}}<label><input type="checkbox" id="show-unselected"> specs not selected</label>{{end}}
  <span><label for="rule-filter">Rule</label> <input id="rule-filter" type="search" placeholder="T-4, E- …" size="10"></span>
  <output id="shown" aria-live="polite"></output>
</form>
<main>
{{.Body}}
</main>
<script>{{.Script}}</script>
</body>
</html>
`))

// Write renders p as one HTML document.
func Write(w io.Writer, p Page) error {
	return page.Execute(w, struct {
		Page
		Style  template.CSS
		Script template.JS
	}{p, template.CSS(style), template.JS(script)})
}
