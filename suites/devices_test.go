package suites

import "testing"

// A listing names a device_id only as a whole, in any format: inside a
// JSON string, a table cell or a sentence, never as the start or end of a
// longer id.
func TestNamesADeviceID(t *testing.T) {
	for _, c := range []struct {
		out, id string
		want    bool
	}{
		{`{"devices":[{"device_id":"dev_a1","model":"Pixel"}]}`, "dev_a1", true},
		{"DEVICE  MODEL\ndev_a1  Pixel\n", "dev_a1", true},
		{"dev_a1", "dev_a1", true},
		{"paired: 12, 3", "3", true},
		{"paired: 12, 3", "1", false},
		{"dev_a12 dev_a10", "dev_a1", false},
		{"xdev_a1 dev_a1.", "dev_a1", true},
		{"", "dev_a1", false},
		{"anything", "", false},
	} {
		if got := names(c.out, c.id); got != c.want {
			t.Errorf("names(%q, %q) = %v, want %v", c.out, c.id, got, c.want)
		}
	}
}
