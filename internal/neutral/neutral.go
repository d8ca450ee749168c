// Package neutral checks that the conformance suites judge a server by the
// spec alone (note 21): a MUST spec may read only what lmp-v1.md defines,
// the envelope and §4's payload fields, never a name, code, field or row
// shape that is the reference server's own choice.
//
// The reference server's own choices are marked where they are declared:
// a payload field with the struct tag `lmp:"ours"`, and the names and
// codes listed in OwnNames. Package suites/ours is the one path through
// which the suites read them, for SHOULD and INFO specs.
//
// Find loads the suites' packages with their types and follows each MUST
// spec (conformance.Specs.It with rules.MUST) through every function of the
// suites it calls, however deep: a use of an own field, an own name or of
// package ours on that path is a Finding, with the file and line of the
// use and of the spec. The harness, package suites/conformance, is not
// followed: it serves every spec alike (connections, probes, reports) and
// judges frames only by the schemas, which allow every open choice.
package neutral

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// The packages the guard knows by path.
const (
	lmpPath         = "github.com/loomi-lmp/lmpkit/lmp"
	rulesPath       = "github.com/loomi-lmp/lmpkit/suites/rules"
	conformancePath = "github.com/loomi-lmp/lmpkit/suites/conformance"
	// OursPath is the package through which SHOULD and INFO specs read
	// the reference server's own choices.
	OursPath = "github.com/loomi-lmp/lmpkit/suites/ours"
)

// OwnNames are the declarations of package lmp that name the reference
// server's own choices, not the spec's: the acknowledgement frame and its
// payload (note 5), the task row statuses, every error
// code but already_resolved (I-2) and every close code (note 21).
func OwnNames(name string) bool {
	switch {
	case name == "TypeAck", name == "Ack", name == "LegitimateCloseCodes":
		return true
	case strings.HasPrefix(name, "TaskStatus"):
		return true
	case strings.HasPrefix(name, "Code") && name != "CodeAlreadyResolved":
		return true
	case strings.HasPrefix(name, "Close"):
		return true
	}
	return false
}

// OwnTag is the struct tag key and value that marks a payload field as the
// reference server's own (`lmp:"ours"`).
const OwnTag = "ours"

// A Finding is a read of something the spec does not define on the path of
// a MUST spec.
type Finding struct {
	Pos  token.Position // the read
	Spec token.Position // the MUST spec whose body reaches it
	Text string         // the spec's text
	What string         // what is read
	Via  []string       // the functions between the spec and the read
}

func (f Finding) String() string {
	via := ""
	if len(f.Via) > 0 {
		via = " (through " + strings.Join(f.Via, " → ") + ")"
	}
	return fmt.Sprintf("%s: MUST spec %q (%s) reads %s, which lmp-v1.md does not define%s: a MUST spec checks behaviour; read our own choices through package ours, in a SHOULD or INFO spec",
		f.Pos, f.Text, f.Spec, f.What, via)
}

// Find loads the packages of patterns (relative to dir) and returns every
// finding, in file order.
func Find(dir string, patterns ...string) ([]Finding, error) {
	cfg := &packages.Config{
		Mode:  packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:   dir,
		Tests: false,
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, err
	}
	var errs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			errs = append(errs, e.Error())
		}
	})
	if len(errs) > 0 {
		return nil, fmt.Errorf("neutral: loading %v: %s", patterns, strings.Join(errs, "; "))
	}
	g := newGraph(pkgs)
	var out []Finding
	for _, s := range g.mustSpecs() {
		out = append(out, g.walk(s)...)
	}
	slices.SortFunc(out, func(a, b Finding) int {
		if c := strings.Compare(a.Pos.Filename, b.Pos.Filename); c != 0 {
			return c
		}
		return a.Pos.Line - b.Pos.Line
	})
	return out, nil
}

// graph is the loaded code: every function declaration by its object's
// full name, with the type information of its package.
type graph struct {
	fset  *token.FileSet
	funcs map[string]funcBody
	pkgs  []*packages.Package
}

type funcBody struct {
	decl *ast.FuncDecl
	info *types.Info
}

func newGraph(pkgs []*packages.Package) *graph {
	g := &graph{funcs: map[string]funcBody{}, pkgs: pkgs}
	for _, p := range pkgs {
		g.fset = p.Fset
		for _, f := range p.Syntax {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				if obj, ok := p.TypesInfo.Defs[fd.Name].(*types.Func); ok {
					g.funcs[key(obj)] = funcBody{decl: fd, info: p.TypesInfo}
				}
			}
		}
	}
	return g
}

func key(f *types.Func) string {
	if o := f.Origin(); o != nil {
		f = o
	}
	return f.FullName()
}

// spec is one MUST spec: its body (a function literal or a function) and
// where it is declared.
type spec struct {
	pos  token.Position
	text string
	body ast.Node
	info *types.Info
}

// mustSpecs finds every Specs.It(ids, rules.MUST, text, body, …) of package conformance.
func (g *graph) mustSpecs() []spec {
	var out []spec
	for _, p := range g.pkgs {
		for _, f := range p.Syntax {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) < 4 || !isFunc(p.TypesInfo, call.Fun, conformancePath, "It") {
					return true
				}
				if !isObj(p.TypesInfo, call.Args[1], rulesPath, "MUST") {
					return true
				}
				text := ""
				if tv, ok := p.TypesInfo.Types[call.Args[2]]; ok && tv.Value != nil {
					text = strings.Trim(tv.Value.ExactString(), `"`)
				}
				s := spec{pos: g.fset.Position(call.Pos()), text: text, info: p.TypesInfo}
				switch b := ast.Unparen(call.Args[3]).(type) {
				case *ast.FuncLit:
					s.body = b.Body
				default:
					if fn := calledFunc(p.TypesInfo, b); fn != nil {
						if fb, ok := g.funcs[key(fn)]; ok {
							s.body, s.info = fb.decl.Body, fb.info
						}
					}
				}
				if s.body != nil {
					out = append(out, s)
				}
				return true
			})
		}
	}
	return out
}

// walk follows s's body through every function of the loaded packages it
// uses and returns the reads of own choices on the way.
func (g *graph) walk(s spec) []Finding {
	var out []Finding
	seen := map[string]bool{}
	var visit func(body ast.Node, info *types.Info, via []string)
	visit = func(body ast.Node, info *types.Info, via []string) {
		ast.Inspect(body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if what := ownSelection(info, n); what != "" {
					out = append(out, Finding{Pos: g.fset.Position(n.Sel.Pos()), Spec: s.pos, Text: s.text, What: what, Via: slices.Clone(via)})
				}
			case *ast.Ident:
				obj := info.Uses[n]
				if obj == nil || obj.Pkg() == nil {
					return true
				}
				switch {
				case obj.Pkg().Path() == lmpPath && OwnNames(obj.Name()) && isPackageLevel(obj):
					out = append(out, Finding{Pos: g.fset.Position(n.Pos()), Spec: s.pos, Text: s.text, What: "lmp." + obj.Name(), Via: slices.Clone(via)})
				case obj.Pkg().Path() == OursPath:
					out = append(out, Finding{Pos: g.fset.Position(n.Pos()), Spec: s.pos, Text: s.text, What: "ours." + obj.Name(), Via: slices.Clone(via)})
				}
				if fn, ok := obj.(*types.Func); ok && fn.Pkg().Path() != conformancePath {
					k := key(fn)
					if fb, ok := g.funcs[k]; ok && !seen[k] {
						seen[k] = true
						visit(fb.decl.Body, fb.info, append(via, shortName(fn)))
					}
				}
			}
			return true
		})
	}
	visit(s.body, s.info, nil)
	return out
}

// ownSelection names the own field n selects, or returns "".
func ownSelection(info *types.Info, n *ast.SelectorExpr) string {
	sel := info.Selections[n]
	if sel == nil || sel.Kind() != types.FieldVal {
		return ""
	}
	field := sel.Obj().(*types.Var)
	if field.Pkg() == nil || field.Pkg().Path() != lmpPath {
		return ""
	}
	st, named := structOf(sel.Recv(), sel.Index())
	if st == nil {
		return ""
	}
	for i := range st.NumFields() {
		if st.Field(i) == field || st.Field(i).Origin() == field.Origin() {
			if reflect.StructTag(st.Tag(i)).Get("lmp") == OwnTag {
				return "lmp." + named + "." + field.Name()
			}
		}
	}
	return ""
}

// structOf returns the struct that declares the field reached by index
// from recv, and the struct's type name.
func structOf(recv types.Type, index []int) (*types.Struct, string) {
	t := recv
	for i, idx := range index {
		if p, ok := t.Underlying().(*types.Pointer); ok {
			t = p.Elem()
		}
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		st, ok := t.Underlying().(*types.Struct)
		if !ok {
			return nil, ""
		}
		if i == len(index)-1 {
			name := ""
			if n, ok := t.(*types.Named); ok {
				name = n.Obj().Name()
			}
			return st, name
		}
		t = st.Field(idx).Type()
	}
	return nil, ""
}

func isPackageLevel(obj types.Object) bool {
	return obj.Parent() == obj.Pkg().Scope()
}

func shortName(fn *types.Func) string {
	name := fn.Name()
	if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
		t := sig.Recv().Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := t.(*types.Named); ok {
			name = n.Obj().Name() + "." + name
		}
	}
	return fn.Pkg().Name() + "." + name
}

func calledFunc(info *types.Info, e ast.Expr) *types.Func {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		fn, _ := info.Uses[e].(*types.Func)
		return fn
	case *ast.SelectorExpr:
		fn, _ := info.Uses[e.Sel].(*types.Func)
		return fn
	case *ast.IndexExpr:
		return calledFunc(info, e.X)
	case *ast.IndexListExpr:
		return calledFunc(info, e.X)
	}
	return nil
}

func isFunc(info *types.Info, e ast.Expr, pkg, name string) bool {
	fn := calledFunc(info, e)
	return fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == pkg && fn.Name() == name
}

func isObj(info *types.Info, e ast.Expr, pkg, name string) bool {
	var id *ast.Ident
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		id = e
	case *ast.SelectorExpr:
		id = e.Sel
	default:
		return false
	}
	obj := info.Uses[id]
	return obj != nil && obj.Pkg() != nil && obj.Pkg().Path() == pkg && obj.Name() == name
}
