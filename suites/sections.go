package suites

import "github.com/loomi-lmp/lmpkit/suites/conformance"

// The suites' sections. Each is a part of a section of the rules table
// (rules.Table), whose name starts its title; its label selects it
// (--label-filter section:<label>). TestSectionTitles holds them to the
// table.
var (
	sectionTransport = conformance.NewSection("transport", "§1 Transport", "")
	sectionHeartbeat = conformance.NewSection("heartbeat", "§1 Transport", "Heartbeat")
	sectionTiming    = conformance.NewSection("timing", "§1 Transport", "Timing profile")

	sectionEnvelope   = conformance.NewSection("envelope", "§2 Envelope, ordering, replay", "")
	sectionReplay     = conformance.NewSection("replay", "§2 Envelope, ordering, replay", "Reconnection and replay")
	sectionTruncation = conformance.NewSection("truncation", "§2 Envelope, ordering, replay", "Truncation")
	sectionRestart    = conformance.NewSection("restart", "§2 Envelope, ordering, replay", "Restarts and crashes (note 4)")

	sectionPairing     = conformance.NewSection("pairing", "§3 Pairing, identity, security", "Pairing")
	sectionAuth        = conformance.NewSection("auth", "§3 Pairing, identity, security", "Authentication")
	sectionDevices     = conformance.NewSection("devices", "§3 Pairing, identity, security", "Devices")
	sectionSecurity    = conformance.NewSection("security", "§3 Pairing, identity, security", "Security")
	sectionLAN         = conformance.NewSection("lan", "§3 Pairing, identity, security", "LAN deployments")
	sectionMultiDevice = conformance.NewSection("multidevice", "§3 Pairing, identity, security", "Multi-device")

	sectionRuns          = conformance.NewSection("runs", "§4 Frames", "Run lifecycle")
	sectionTaskList      = conformance.NewSection("tasklist", "§4 Frames", "task.list")
	sectionNotifications = conformance.NewSection("notifications", "§4 Frames", "Notifications")
	sectionLargePayloads = conformance.NewSection("largepayloads", "§4 Frames", "Large payloads")
	sectionApprovalQueue = conformance.NewSection("approvalqueue", "§4 Frames", "Approvals of one task")

	sectionIdempotency = conformance.NewSection("idempotency", "§5 Idempotency", "")
	sectionVersioning  = conformance.NewSection("versioning", "§6 Versions", "")

	sectionHermes = conformance.NewSection("hermes", "§7 Hermes mapping", "")
	sectionTurns  = conformance.NewSection("turns", "§7 Hermes mapping", "Turns")
)
