package check

import (
	"time"

	"github.com/loomi-lmp/lmpkit/suites/conformance"
)

// budgetOf is the run's budget for the specs cfg selects of t's declared
// tree, the time the run is cut at (the budget, or --run-timeout when that
// comes first), and the reason the cut specs give.
func budgetOf(cfg Config, t *conformance.Target) (conformance.Budget, time.Duration, string, error) {
	specs, err := conformance.Selected(cfg.LabelFilter, cfg.Focus, cfg.Skip)
	if err != nil {
		return conformance.Budget{}, 0, "", usagef("%v", err)
	}
	b := conformance.BudgetFor(t.Profile, specs)
	if cfg.RunTimeout > 0 && cfg.RunTimeout < b.Total() {
		return b, cfg.RunTimeout, "the run reached --run-timeout " + cfg.RunTimeout.String(), nil
	}
	return b, b.Total(), "the run reached its budget of " + b.Total().Round(time.Second).String(), nil
}
