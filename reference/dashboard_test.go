package reference_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/loomi-lmp/lmpkit/client"
	"github.com/loomi-lmp/lmpkit/dashboard"
	"github.com/loomi-lmp/lmpkit/driver"
	"github.com/loomi-lmp/lmpkit/lmp"
	"github.com/loomi-lmp/lmpkit/reference"
)

// TestDashboardFollowsFrames runs the dashboard in this process (so -race
// watches the observer on the connections' goroutines): two devices get
// a burst while a page follows the event stream, which delivers every
// frame written to them, and a clean Close ends the stream.
func TestDashboardFollowsFrames(t *testing.T) {
	inst := start(t, reference.Options{Dashboard: true})
	var devs []string
	for range 2 {
		pr, err := client.Pair(ctxT(t), inst.PairURL, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		c, dev, _, err := client.PairDevice(ctxT(t), inst.WSURL, pr.Token, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseNow()
		devs = append(devs, dev.ID)
	}
	resp, err := http.Get(inst.BaseURL + dashboard.PathEvents)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()

	const burst = 200
	if _, err := driver.New(inst.DriverURL, nil).Play(ctxT(t), driver.PlayRequest{Scenario: "burst", Args: []string{"200", "0"}, Wait: true}); err != nil {
		t.Fatal(err)
	}
	notifications := map[string]int{}
	lines := bufio.NewScanner(resp.Body)
	for total := 0; total < 2*burst && lines.Scan(); {
		data, ok := strings.CutPrefix(lines.Text(), "data: ")
		if !ok {
			continue
		}
		var f dashboard.Frame
		if err := json.Unmarshal([]byte(data), &f); err != nil {
			t.Fatal(err)
		}
		if f.Type == lmp.TypeNotification && f.Dir == "out" {
			notifications[f.Device]++
			total++
		}
	}
	for _, id := range devs {
		if notifications[id] != burst {
			t.Errorf("device %s: %d notifications in the stream, want %d", id, notifications[id], burst)
		}
	}
	if err := inst.Close(context.Background()); err != nil {
		t.Fatalf("Close with a page following: %v", err)
	}
	for lines.Scan() {
	}
}
