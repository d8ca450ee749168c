// Package buildinfo names the build a command runs from, for --version and
// hello.ok's server_version.
package buildinfo

import (
	"fmt"
	"runtime/debug"
)

// Version is the module version the binary was built from ("v1.2.0", a
// pseudo-version, or "(devel)" for a build in a clone), or "" when the
// binary carries no build information.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	return bi.Main.Version
}

// String is the --version line of command: the module version, then the
// VCS revision and time when the build recorded them, and the Go version.
func String(command string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return command + " (no build information)"
	}
	version := bi.Main.Version
	if version == "" {
		version = "(devel)"
	}
	var rev, at, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	out := fmt.Sprintf("%s %s %s", command, bi.Main.Path, version)
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		out += fmt.Sprintf(" (revision %s, %s%s)", rev, at, modified)
	}
	return out + ", " + bi.GoVersion
}
