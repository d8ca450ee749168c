package check

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
)

// progressLine is the live line a run shows on a terminal: specs done out
// of the total, the current section and the time since the run began. It
// is redrawn in place and erased before the summary.
type progressLine struct {
	w     io.Writer
	start time.Time

	mu      sync.Mutex
	total   int
	done    int
	section string
	stop    chan struct{}
	stopped chan struct{}
}

// progress is the running run's line, nil when there is none.
var progress atomic.Pointer[progressLine]

// registerProgress adds the reporting nodes that feed the line. They are
// registered just before RunSpecs, not at init: a PreviewSpecs before the
// run (the selection check) leaves package-level ReportBeforeEach and
// ReportAfterEach nodes unfired in the run that follows.
var registerProgress = sync.OnceFunc(func() {
	ginkgo.ReportBeforeSuite(func(r ginkgo.Report) {
		if p := progress.Load(); p != nil {
			p.update(func() { p.total = r.PreRunStats.SpecsThatWillRun })
		}
	})
	ginkgo.ReportBeforeEach(func(s ginkgo.SpecReport) {
		if p := progress.Load(); p != nil && s.LeafNodeType == types.NodeTypeIt && s.State != types.SpecStateSkipped {
			section, _, _, _, _ := specInfo(s)
			p.update(func() { p.section = section })
		}
	})
	ginkgo.ReportAfterEach(func(s ginkgo.SpecReport) {
		if p := progress.Load(); p != nil && s.LeafNodeType == types.NodeTypeIt && s.State != types.SpecStateSkipped {
			p.update(func() { p.done++ })
		}
	})
})

// startProgress draws the line on w until the returned func erases it.
func startProgress(w io.Writer) (stop func()) {
	registerProgress()
	p := &progressLine{w: w, start: time.Now(), stop: make(chan struct{}), stopped: make(chan struct{})}
	progress.Store(p)
	go func() {
		defer close(p.stopped)
		tick := time.NewTicker(time.Second) // the elapsed time moves on
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				p.update(func() {})
			case <-p.stop:
				return
			}
		}
	}()
	return func() {
		close(p.stop)
		<-p.stopped
		progress.Store(nil)
		p.mu.Lock()
		fmt.Fprint(p.w, "\r\x1b[K")
		p.mu.Unlock()
	}
}

func (p *progressLine) update(change func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	change()
	el := time.Since(p.start).Round(time.Second)
	total := "?"
	if p.total > 0 {
		total = fmt.Sprint(p.total)
	}
	fmt.Fprintf(p.w, "\r\x1b[Klmp-check: %d/%s specs  %s  %s", p.done, total, el, p.section)
}
