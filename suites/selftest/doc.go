// Package selftest proves that the conformance suites catch broken
// servers. Its test runs lmp-check against the pristine reference server,
// which must pass every spec, and against one reference server per fault
// of internal/fault's catalogue, each breaking one rule: every faulty
// server must fail, on a spec labelled with the rule it breaks.
//
//	go test ./suites/selftest/ -v      # prints the fault → rule → verdict table
//	go test ./suites/selftest/ -run 'TestSelfTest/servers/token-reusable$'
//	go test ./suites/selftest/ -run TestFaultsDoc -update   # regenerate FAULTS.md
//
// The package holds no code outside its tests.
package selftest
