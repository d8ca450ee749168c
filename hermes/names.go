package hermes

import "strings"

// Platform is the name of the Loomi platform in Hermes: the source of its
// sessions, the platform of its turns and the surface of their stream hooks.
const Platform = "loomi"

// StopCommand is the inbound message that stops a session's running turn.
const StopCommand = "/stop"

// TelemetrySchemaVersion is the telemetry_schema_version every stream hook
// carries.
const TelemetrySchemaVersion = "hermes.observer.v1"

// SessionKeyPrefix is the gateway session key of the Loomi DM chats in
// Hermes' default profile: the key of chat C is SessionKeyPrefix + C.
const SessionKeyPrefix = "agent:main:" + Platform + ":dm:"

// SessionKey is the session key of the Loomi DM chat chatID under a Hermes
// profile, as gateway/session.py lays it out:
// agent:<profile>:loomi:dm:<chat_id>. The empty profile and "default" are
// Hermes' default namespace, main; a profile itself named main is main~, so
// that it never collides with it.
func SessionKey(profile, chatID string) string {
	switch profile {
	case "", "default":
		profile = "main"
	case "main":
		profile = "main~"
	}
	return "agent:" + profile + ":" + Platform + ":dm:" + chatID
}

// ChatOfKey returns the chat of a Loomi DM session key, or false for
// another platform's key or another chat type. A profile's name holds no
// colon; the chat id is put in as it is, colons and all.
func ChatOfKey(sessionKey string) (string, bool) {
	rest, ok := strings.CutPrefix(sessionKey, "agent:")
	if !ok {
		return "", false
	}
	profile, rest, ok := strings.Cut(rest, ":")
	if !ok || profile == "" {
		return "", false
	}
	chat, ok := strings.CutPrefix(rest, Platform+":dm:")
	return chat, ok && chat != ""
}
