package check

import (
	"net"
	"net/http"

	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/reference"
	"github.com/loomi-lmp/lmpkit/suites/conformance"
)

// plan is a run's configuration once validated: every file it names read,
// every flag combination checked, the selection complete.
type plan struct {
	// cfg is the configuration, its Focus extended with --rerun-failed's
	// specs.
	cfg Config
	// reports is cfg.ReportConfig validated, with the expectations.
	reports  *reportPlan
	triggers *conformance.Triggers
	http     *http.Client
	// inProcess is the in-process server's timings (--profile), for a run
	// without --url.
	inProcess lmp.Profile
}

// validate checks cfg before anything starts: a usage error names the flag
// at fault.
func validate(cfg Config) (*plan, error) {
	reports, err := planReport(cfg.ReportConfig, SubjectServer)
	if err != nil {
		return nil, err
	}
	p := &plan{cfg: cfg, reports: reports}
	p.cfg.ReportConfig = reports.ReportConfig
	if cfg.RunTimeout < 0 {
		return nil, usagef("--run-timeout %v: want a positive duration", cfg.RunTimeout)
	}
	if p.http, err = cfg.httpClient(); err != nil {
		return nil, err
	}
	if cfg.Triggers != "" {
		if p.triggers, err = conformance.LoadTriggers(cfg.Triggers); err != nil {
			return nil, usagef("--triggers: %v", err)
		}
	}
	if cfg.NoDriver && (cfg.URL != "" || cfg.DriverURL != "") {
		return nil, usagef("--no-driver checks the in-process server without its driver: it excludes --url and --driver-url (against a server of your own, leave out --driver-url)")
	}
	if cfg.URL != "" && cfg.Listen != "" {
		return nil, usagef("--listen sets where the in-process server listens: it excludes --url")
	}
	if cfg.URL != "" {
		if err := checkURL(cfg.URL); err != nil {
			return nil, err
		}
		if cfg.ServerLog != "" {
			if err := checkServerLog(cfg.ServerLog); err != nil {
				return nil, err
			}
		}
		return p, nil
	}
	if cfg.ServerLog != "" {
		return nil, usagef("--server-log needs --url: the in-process server's own log is read without it")
	}
	for flag, v := range map[string]string{"--restart-cmd": cfg.RestartCmd, "--crash-cmd": cfg.CrashCmd} {
		if v != "" {
			return nil, usagef("%s needs --url: it acts on the server under test, and the in-process server is not a process of its own", flag)
		}
	}
	if cfg.Listen != "" {
		if _, _, err := net.SplitHostPort(cfg.Listen); err != nil {
			return nil, usagef("--listen %q: %v", cfg.Listen, err)
		}
	}
	switch cfg.Profile {
	case "", "short":
		p.cfg.Profile = "short"
		p.inProcess = reference.ShortProfile
	case "spec":
		// The spec names no approval timeout (note 15): Hermes' default of
		// 300 s would only make the run wait, so the short one is kept.
		p.inProcess = lmp.Profile{ApprovalTimeout: reference.ShortProfile.ApprovalTimeout}
	default:
		return nil, usagef("--profile %q: want short or spec", cfg.Profile)
	}
	return p, nil
}
