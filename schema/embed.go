package schema

import (
	"embed"
	"io/fs"
)

// The example corpus is not embedded: tests read it from disk, and the
// binaries that validate frames do not need it.
//
//go:embed *.json s2c c2s http driver asyncapi.yaml
var files embed.FS

// BaseURL is the prefix of every LMP schema's $id. A schema name such as
// "s2c/run.delta" has the $id BaseURL + "s2c/run.delta.json".
const BaseURL = "https://lmpkit.dev/schema/"

// Files returns the embedded schema files and asyncapi.yaml, rooted at this
// directory (s2c/run.delta.json, asyncapi.yaml, …), for serving or for
// generating documentation.
func Files() fs.FS { return files }
