//go:build race

package selftest

func init() { raceEnabled = true }
