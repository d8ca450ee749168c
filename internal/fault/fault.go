// Package fault is the catalogue of deliberate protocol violations that the
// reference server can be built to commit, one rule at a time. The self-test
// (suites/selftest) starts a server with each fault and proves that
// lmp-check fails it, on a spec that carries the broken rule's ID.
//
// The package is internal so that only this module's tests reach it: no flag
// of the shipped lmp-server can turn a fault on.
package fault

// Name identifies one fault.
type Name string

// Set is the set of faults a server commits. The zero Set commits none.
type Set struct {
	on map[Name]bool
}

// Of returns the set of the given faults.
func Of(names ...Name) Set {
	s := Set{on: make(map[Name]bool, len(names))}
	for _, n := range names {
		s.on[n] = true
	}
	return s
}

// Has reports whether the set commits fault n.
func (s Set) Has(n Name) bool { return s.on[n] }

// Empty reports whether the set commits no fault.
func (s Set) Empty() bool { return len(s.on) == 0 }
