package campaign

import (
	"net"
	"net/http"
	"time"
)

// campaignTransport is the HTTP transport of a campaign given no client:
// http.DefaultTransport's, tuned for a load tool that opens a connection
// per episode. TCP keep-alive probes are off: an episode's connection lives
// for milliseconds and the monitor pings its own every few seconds, so the
// probes never fire, and arming them cost three system calls per
// connection. Enough idle HTTP connections are kept for every worker to
// mint pairing tokens without dialing again. Its connections are
// batchconn.Conns, so that an episode can send its frames together.
func campaignTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = batchDialer((&net.Dialer{Timeout: 30 * time.Second, KeepAlive: -1}).DialContext)
	t.MaxIdleConnsPerHost = 64
	return t
}
