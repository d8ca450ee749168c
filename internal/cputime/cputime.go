// Package cputime reads the CPU time the process has used, for benchmarks
// that report CPU per unit of work beside wall time.
package cputime

import "time"

// Process is the CPU time (user + system) the whole process has used so
// far, or 0 where the platform does not say.
func Process() time.Duration { return process() }
