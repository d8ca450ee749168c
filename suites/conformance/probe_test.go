package conformance

import "testing"

// TestSelectsTimerSpec: the probes start with the suite only when the
// label filter selects a timer spec; a run of other specs (the restart
// specs, which wait for running probes) does not start them.
func TestSelectsTimerSpec(t *testing.T) {
	saved := timerSpecLabels
	defer func() { timerSpecLabels = saved }()
	timerSpecLabels = [][]string{
		{"section:heartbeat", "MUST", "T-5", "timer"},
		{"section:pairing", "MUST", "P-5", "timer"},
	}
	for filter, want := range map[string]bool{
		"":                  true,
		"T-5":               true,
		"section:pairing":   true,
		"MUST && !timer":    false,
		"section:restart":   false,
		"restart || S-5":    false,
		"timer && !T-5":     true,
		"((":                true, // Ginkgo reports the bad filter itself
		"section:heartbeat": true,
	} {
		if got := selectsTimerSpec(filter); got != want {
			t.Errorf("%q: %v, want %v", filter, got, want)
		}
	}
}
