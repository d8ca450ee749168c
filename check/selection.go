package check

import (
	"regexp"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
)

// checkSelection checks --label-filter, --focus and --skip before anything
// starts: Ginkgo itself panics on a bad regexp and fails the suite on a bad
// label filter, which would turn a usage error into a crash or into exit
// code 1.
func checkSelection(labelFilter string, focus, skip []string) error {
	if labelFilter != "" {
		if _, err := types.ParseLabelFilter(labelFilter); err != nil {
			return usagef("--label-filter %q: %s", labelFilter, labelFilterMessage(err))
		}
	}
	for _, f := range []struct {
		flag string
		res  []string
	}{{"--focus", focus}, {"--skip", skip}} {
		for _, re := range f.res {
			if _, err := regexp.Compile(re); err != nil {
				return usagef("%s %q: %v", f.flag, re, err)
			}
		}
	}
	return nil
}

// formatCodes are Ginkgo's {{red}}-style console formatting directives.
var formatCodes = regexp.MustCompile(`\{\{[a-z/]*\}\}`)

// labelFilterMessage is the explanation in Ginkgo's label filter error:
// its last line, without formatting codes (the lines before it repeat the
// filter with the fault highlighted).
func labelFilterMessage(err error) string {
	msg := err.Error()
	if ge, ok := err.(types.GinkgoError); ok {
		msg = ge.Message
	}
	lines := strings.Split(strings.TrimSpace(formatCodes.ReplaceAllString(msg, "")), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
