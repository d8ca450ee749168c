// Package selftest proves that the conformance suites catch broken
// servers, by mutation testing. Each mutant of internal/mutant's catalogue
// is a small edit of the reference server's source that breaks one facet
// of one rule. The self-test builds lmp-check once per mutant with the
// mutant as a build overlay (go build -overlay), so that its in-process
// server is the mutated one, runs it on the mutant's sections, and
// requires a failing spec labelled with a rule the mutant breaks. A mutant
// caught through the wire alone is built as lmp-server too and checked
// once more behind the minimal variant (internal/variant), which passes on
// only the fields lmp-v1.md defines: it must be caught there too. The
// clean lmp-check must pass every spec. The shipped code carries no
// mutant and no switch for one.
//
//	go test ./suites/selftest/ -v      # prints the mutant → rule → verdict table
//	go test ./suites/selftest/ -run 'TestSelfTest/servers/token-reusable$'
//	go test ./suites/selftest/ -run TestFaultsDoc -update   # regenerate FAULTS.md
//
// The package holds no code outside its tests.
package selftest
