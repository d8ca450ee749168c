package main

import (
	"os"
	"runtime/debug"
)

// serverGCPercent is the server's GOGC when the environment sets none.
// Its live heap is small (tens of megabytes under a fuzz campaign) and
// most of what it allocates lives for one frame, so the collector runs
// often at the default of 100 for little it frees. At 200 a campaign's
// server needs about a tenth less CPU per frame for some 50 MB more at its
// peak (docs/performance.md, "Seventh pass").
const serverGCPercent = 200

// tuneGC sets serverGCPercent unless GOGC is set: an operator's choice,
// GOGC=off included, wins.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(serverGCPercent)
	}
}
