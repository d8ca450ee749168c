package validate

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/loomi-lmp/lmpkit/schema"
)

// Exit codes of `lmp-check validate`.
const (
	ExitValid      = 0 // every frame is valid
	ExitInvalid    = 1 // at least one frame is invalid
	ExitUnreadable = 2 // usage error, unreadable file, or input that holds no JSON
)

// maxInput bounds one input file; a captured session is far smaller.
const maxInput = 256 << 20

const usage = `usage: lmp-check validate [--dir s2c|c2s] FILE...

Validates LMP frames against the LMP v1 JSON Schemas. FILE may be "-" for
standard input. Each input holds one JSON frame, a JSON array of frames, or
NDJSON (one frame per line, such as a captured session).

Exit status: 0 when every frame is valid, 1 when any is invalid, 2 on a
usage error or unreadable input.

Flags:
`

// Run is `lmp-check validate`: args are the arguments after "validate".
// It prints a verdict per frame to stdout, problems with the command or
// its input to stderr, and returns the exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lmp-check validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", string(schema.ServerToClient), "direction of the frames: s2c (server → client) or c2s (client → server)")
	quiet := fs.Bool("quiet", false, "print only invalid frames and the summary")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitValid
		}
		return ExitUnreadable
	}
	d := schema.Direction(*dir)
	if d != schema.ServerToClient && d != schema.ClientToServer {
		fmt.Fprintf(stderr, "lmp-check validate: --dir must be s2c or c2s, not %q\n", *dir)
		return ExitUnreadable
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return ExitUnreadable
	}
	if err := schema.Check(); err != nil {
		fmt.Fprintf(stderr, "lmp-check validate: %v\n", err)
		return ExitUnreadable
	}

	r := &report{out: stdout, dir: d, quiet: *quiet, multi: fs.NArg() > 1}
	unreadable := false
	for _, name := range fs.Args() {
		data, err := read(name, stdin)
		if err == nil {
			var frames []frame
			if frames, err = split(data); err == nil {
				r.file(name, frames)
				continue
			}
		}
		fmt.Fprintf(stderr, "lmp-check validate: %s: %v\n", display(name), err)
		unreadable = true
	}
	fmt.Fprintf(stdout, "%d frames: %d valid, %d invalid\n", r.valid+r.invalid, r.valid, r.invalid)
	switch {
	case unreadable:
		return ExitUnreadable
	case r.invalid > 0:
		return ExitInvalid
	}
	return ExitValid
}

func read(name string, stdin io.Reader) ([]byte, error) {
	r := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxInput {
		return nil, fmt.Errorf("larger than %d bytes", maxInput)
	}
	return data, nil
}

func display(name string) string {
	if name == "-" {
		return "<stdin>"
	}
	return name
}

// report prints verdicts and counts them.
type report struct {
	out            io.Writer
	dir            schema.Direction
	quiet, multi   bool
	valid, invalid int
}

func (r *report) file(name string, frames []frame) {
	if r.multi {
		fmt.Fprintf(r.out, "== %s\n", display(name))
	}
	for i, f := range frames {
		errs := schema.ValidateFrame(r.dir, f.raw)
		where := fmt.Sprintf("frame %d (line %d", i+1, f.line)
		if f.elem > 0 {
			where += fmt.Sprintf(", element %d", f.elem)
		}
		where += ")"
		if errs == nil {
			r.valid++
			if !r.quiet {
				fmt.Fprintf(r.out, "%s %s: ok\n", where, frameType(f.raw, r.dir))
			}
			continue
		}
		r.invalid++
		fmt.Fprintf(r.out, "%s %s: INVALID\n", where, errs[0].Frame)
		for _, e := range errs {
			fmt.Fprintf(r.out, "    %s\n", e)
		}
	}
}

// frameType names a valid frame the way the validator would in an error.
// A type unknown in dir is quoted, and the verdict says that only its
// envelope was checked: receivers ignore such frames (V-1).
func frameType(raw []byte, dir schema.Direction) string {
	name := schema.FrameName(dir, raw)
	if strings.HasPrefix(name, `"`) {
		name += " (unknown type: envelope only, V-1)"
	}
	return name
}
