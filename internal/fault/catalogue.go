package fault

// Fault describes one deliberate violation: the rule it breaks, the suite
// sections whose specs must catch it, and what the broken server does.
type Fault struct {
	Name Name
	// Rules are the IDs of the rules it breaks; the self-test requires a
	// failing spec labelled with at least one of them.
	Rules []string
	// Sections are the suite section labels (section:<label>) to run
	// against it; a fault needs only the sections its rule lives in.
	Sections []string
	// Does says what the faulty server does, for the self-test's table.
	Does string
}

// The faults. Each is checked by the server code at the one place that
// enforces the rule it breaks.
const (
	HealthWrongBody          Name = "health-wrong-body"
	BinaryFrameIgnored       Name = "binary-frame-ignored"
	NoServerPings            Name = "no-server-pings"
	SilentClientsKept        Name = "silent-clients-kept"
	ClientPingUnanswered     Name = "client-ping-unanswered"
	MillisecondTimestamps    Name = "millisecond-timestamps"
	MissingServerTime        Name = "missing-server-time"
	MissingEnvelopeField     Name = "missing-envelope-field"
	SeqRestartsOnReconnect   Name = "seq-restarts-on-reconnect"
	WrongEventID             Name = "wrong-event-id"
	ReplaySkipsOne           Name = "replay-skips-one"
	ReplayDuplicatesOne      Name = "replay-duplicates-one"
	TruncatedNeverSet        Name = "truncated-never-set"
	OfflineDevicesNotBuffer  Name = "offline-devices-not-buffered"
	PairingThroughForwarding Name = "pairing-through-forwarding"
	TokenReusable            Name = "token-reusable"
	TokenTTLIgnored          Name = "token-ttl-ignored"
	TokenWithIdentity        Name = "token-with-identity-accepted"
	ShortCredential          Name = "short-credential"
	WrongCredentialAccepted  Name = "wrong-credential-accepted"
	FramesBeforeHello        Name = "frames-before-hello-accepted"
	CredentialsLogged        Name = "credentials-logged"
	UnauthenticatedKeptOpen  Name = "unauthenticated-kept-open"
	RevokedDeviceConnects    Name = "revoked-device-connects"
	EventsToOneDevice        Name = "events-to-one-device"
	ApprovalResolvableTwice  Name = "approval-resolvable-twice"
	ResolvedNotBroadcast     Name = "approval-resolved-not-broadcast"
	DecidedByAlwaysLocal     Name = "decided-by-always-local"
	WrongDeltaKind           Name = "wrong-delta-kind"
	NotificationCategory     Name = "notification-category-info"
	ToolCallIDDropped        Name = "tool-call-id-dropped"
	NoRunFailed              Name = "no-run-failed"
	CancelIgnored            Name = "cancel-ignored"
	ResumeIgnored            Name = "resume-ignored"
	ChoiceRewritten          Name = "choice-rewritten"
	TaskListIgnoresLimit     Name = "task-list-ignores-limit"
	RequestExecutedTwice     Name = "request-executed-twice"
	RequestIDWindowTen       Name = "request-id-window-10"
	UnknownTypeCloses        Name = "unknown-type-closes"
	UnsupportedVersionOK     Name = "unsupported-version-accepted"
)

// Catalogue lists every fault, in the order of the spec's sections.
var Catalogue = []Fault{
	{HealthWrongBody, []string{"T-2"}, []string{"transport"}, "GET /health answers {\"ok\":true} without v"},
	{BinaryFrameIgnored, []string{"T-3"}, []string{"transport"}, "silently drops a binary frame instead of refusing it"},
	{NoServerPings, []string{"T-4"}, []string{"heartbeat"}, "never sends ping"},
	{SilentClientsKept, []string{"T-5"}, []string{"heartbeat"}, "keeps connections whose client never answers ping"},
	{ClientPingUnanswered, []string{"T-6"}, []string{"transport"}, "ignores a client ping"},
	{MillisecondTimestamps, []string{"T-7"}, []string{"transport", "envelope"}, "sends ts of connection frames in integer milliseconds"},
	{MissingServerTime, []string{"T-8"}, []string{"transport"}, "leaves server_time out of hello.ok"},
	{MissingEnvelopeField, []string{"E-1"}, []string{"envelope"}, "leaves a null run_id out of connection frames' envelope"},
	{SeqRestartsOnReconnect, []string{"E-2"}, []string{"replay", "envelope"}, "numbers each connection's events from 1"},
	{WrongEventID, []string{"E-3"}, []string{"envelope"}, "sends the event_id of connection frames as evt-<seq>"},
	{ReplaySkipsOne, []string{"E-5"}, []string{"replay"}, "leaves the first missed event out of the replay"},
	{ReplayDuplicatesOne, []string{"E-7", "E-2"}, []string{"replay"}, "sends the first replayed event twice"},
	{TruncatedNeverSet, []string{"E-6"}, []string{"truncation"}, "never sets truncated, even for a gap it cannot serve"},
	{OfflineDevicesNotBuffer, []string{"E-5"}, []string{"replay"}, "does not replay events produced while the device was offline"},
	{PairingThroughForwarding, []string{"P-1"}, []string{"pairing"}, "serves the pairing endpoint without its loopback check: a request relayed by a proxy gets a token"},
	{TokenReusable, []string{"P-4"}, []string{"pairing"}, "lets a token pair any number of devices"},
	{TokenTTLIgnored, []string{"P-5"}, []string{"pairing"}, "accepts expired tokens (announces the TTL, never enforces it)"},
	{TokenWithIdentity, []string{"P-6"}, []string{"pairing"}, "pairs a hello that carries a token together with a device identity"},
	{ShortCredential, []string{"P-7"}, []string{"pairing"}, "issues 16-byte credentials"},
	{WrongCredentialAccepted, []string{"P-8"}, []string{"auth"}, "accepts any credential for a known device"},
	{FramesBeforeHello, []string{"F-2"}, []string{"auth"}, "serves task.list and ping sent before hello"},
	{CredentialsLogged, []string{"S-1"}, []string{"security"}, "logs the raw token and credential at INFO when a device pairs or authenticates"},
	{UnauthenticatedKeptOpen, []string{"S-4"}, []string{"auth"}, "never closes connections that do not authenticate"},
	{RevokedDeviceConnects, []string{"S-5"}, []string{"auth"}, "lets a revoked device authenticate"},
	{EventsToOneDevice, []string{"M-1"}, []string{"multidevice"}, "sends each live event to one online connection only"},
	{ApprovalResolvableTwice, []string{"M-2", "I-2"}, []string{"multidevice", "idempotency"}, "acks every resolve of the same approval instead of already_resolved"},
	{ResolvedNotBroadcast, []string{"M-3"}, []string{"multidevice"}, "sends approval.resolved only to the device that resolved it"},
	{DecidedByAlwaysLocal, []string{"M-3", "F-1"}, []string{"multidevice"}, "reports every approval as decided_by local"},
	{WrongDeltaKind, []string{"F-1"}, []string{"runs", "envelope"}, "sends run.delta kind \"txt\""},
	{NotificationCategory, []string{"F-1", "H-4"}, []string{"notifications"}, "sends a diagnostic send() as notification category \"info\""},
	{ToolCallIDDropped, []string{"F-3"}, []string{"runs"}, "drops call_id and gives every tool call index 0"},
	{NoRunFailed, []string{"F-4"}, []string{"runs"}, "ends a failed run with run.completed{status:failed} only"},
	{CancelIgnored, []string{"F-6"}, []string{"runs"}, "acknowledges run.cancel without interrupting Hermes"},
	{ResumeIgnored, []string{"F-7"}, []string{"runs"}, "ignores run.resume"},
	{ChoiceRewritten, []string{"F-8"}, []string{"idempotency"}, "passes every choice to resolve_gateway_approval as once"},
	{TaskListIgnoresLimit, []string{"F-9"}, []string{"tasklist"}, "ignores task.list limit"},
	{RequestExecutedTwice, []string{"I-1"}, []string{"idempotency"}, "executes a repeated request_id again"},
	{RequestIDWindowTen, []string{"I-1"}, []string{"idempotency"}, "remembers only the last 10 request_ids"},
	{UnknownTypeCloses, []string{"V-1"}, []string{"versioning"}, "closes the connection on an unknown client frame type"},
	{UnsupportedVersionOK, []string{"V-2"}, []string{"versioning"}, "accepts hello with protocol_version 2"},
}

// Lookup returns the fault named n.
func Lookup(n Name) (Fault, bool) {
	for _, f := range Catalogue {
		if f.Name == n {
			return f, true
		}
	}
	return Fault{}, false
}
