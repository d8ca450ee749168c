// Package dashboard is lmp-server's page for app developers, served at
// the server's root on loopback: the pairing QR and a button to mint
// another, the paired devices with their activity and a revoke button, a
// live log of every frame in both directions (secrets redacted), a button
// for every mock Hermes scenario, the pending approvals with buttons that
// answer them at the gateway (decided_by local), and the calls the adapter
// made into Hermes.
//
// The page is static HTML, CSS and JavaScript embedded in the binary: no
// build step, nothing fetched from elsewhere. It talks to the server's own
// loopback endpoints (/internal/devices, the driver API under
// /internal/mock/v1) and to the few routes below, and follows the frames
// over server-sent events:
//
//	GET  /                           the page
//	GET  /dashboard/static/…         its script and style sheet
//	GET  /dashboard/events           text/event-stream: "frame" events (Frame), "lost" (a count)
//	GET  /dashboard/activity         what the frames tell about each device (map of Activity)
//	POST /dashboard/pair             mint a pairing token: Pairing, with the QR as SVG
//	GET  /dashboard/approvals        the approvals pending at the gateway
//	POST /dashboard/approvals/{id}   {"choice": …}: answer one at the gateway
//
// Every route must be served behind the same loopback guard as
// /internal/*; Handler refuses cross-site POSTs on top of it.
package dashboard
