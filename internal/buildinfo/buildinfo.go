// Package buildinfo names the build a command runs from, for --version and
// hello.ok's server_version.
package buildinfo

import (
	"fmt"
	"runtime/debug"
)

// A release build (.goreleaser.yaml) stamps its version, commit and date
// with -ldflags -X; a `go build` or `go install` leaves them empty and the
// module's build information speaks instead.
var (
	version string // "v1.2.0", or a snapshot's "v1.2.1-SNAPSHOT-0a1b2c3"
	commit  string
	date    string
)

// Version is the version the binary was built as: the release's stamped
// version, else the module version ("v1.2.0", a pseudo-version, or
// "(devel)" for a build in a clone), or "" when the binary carries no
// build information.
func Version() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	return bi.Main.Version
}

// short is a commit hash cut to 12 digits.
func short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}

// String is the --version line of command: the version (see Version),
// then the VCS revision and time when the build recorded them, and the Go
// version.
func String(command string) string {
	bi, ok := debug.ReadBuildInfo()
	if version != "" {
		out := command + " " + version
		if ok {
			out = command + " " + bi.Main.Path + " " + version
		}
		if commit != "" {
			out += fmt.Sprintf(" (revision %s, %s)", short(commit), date)
		}
		if ok {
			out += ", " + bi.GoVersion
		}
		return out
	}
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
		out += fmt.Sprintf(" (revision %s, %s%s)", short(rev), at, modified)
	}
	return out + ", " + bi.GoVersion
}
