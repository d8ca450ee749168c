package check

import (
	"fmt"
	"log"

	"github.com/loomi-lmp/lmpkit/model"
)

// serveModel starts the scripted model on cfg.Model for the run (--model)
// and returns what stops it. With -v it logs the requests that play no
// scenario on stderr.
func serveModel(cfg Config) (stop func(), err error) {
	var opts model.Options
	if cfg.Verbose {
		opts.Logf = log.New(cfg.Stderr, "lmp-check ", log.LstdFlags).Printf
	}
	srv, err := model.Start(cfg.Model, opts)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Stdout, "lmp-check: serving the scripted model at %s for this run\n", srv.URL)
	return func() { _ = srv.Close() }, nil
}
