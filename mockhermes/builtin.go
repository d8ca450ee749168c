package mockhermes

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
)

//go:embed scenarios/*.yaml
var builtinFS embed.FS

// builtinScenarios parses the embedded scenarios. They are tested, so a
// parse failure is a build defect.
func builtinScenarios() map[string]*Scenario {
	out := map[string]*Scenario{}
	files, err := fs.Glob(builtinFS, "scenarios/*.yaml")
	if err != nil {
		panic(err)
	}
	for _, f := range files {
		src, err := builtinFS.ReadFile(f)
		if err != nil {
			panic(err)
		}
		sc, err := ParseScenario(f, src)
		if err != nil {
			panic(fmt.Sprintf("mockhermes: built-in scenario %s: %v", path.Base(f), err))
		}
		out[sc.Name] = sc
	}
	for _, sc := range gatewayScenarios() {
		out[sc.Name] = sc
	}
	return out
}
