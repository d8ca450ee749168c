package schema

import (
	"strconv"

	"github.com/loomi-lmp/lmpkit/internal/jsonscan"
)

// ServerEnvelope is what a client needs of a server frame's envelope to
// judge it: its type, its seq and event_id (E-2, E-3), and its payload.
type ServerEnvelope struct {
	Type    string
	Seq     int64
	EventID string
	// Payload is the payload's text as written: a slice of the frame.
	Payload []byte
}

// ReadServerFrame validates raw as ValidateFrame(ServerToClient, raw) does
// and, of a frame the schemas pass, reads the envelope from the same
// parse: as encoding/json decodes the frame into a struct of those four
// fields, keys matched regardless of ASCII case and the last of a repeated
// key winning, null leaving a field as it was. read is false where it does
// not read it, and the caller decodes the envelope itself: a frame the
// schemas refuse, or one with a key that is escaped or not ASCII (which
// encoding/json may fold otherwise), or a seq that is no int64 as written.
func ReadServerFrame(raw []byte) (env ServerEnvelope, read bool, errs []Error) {
	c, ok := parsed(ServerToClient, raw)
	if !ok {
		return env, false, referenceValidateFrame(ServerToClient, raw)
	}
	defer c.release()
	errs, ok = c.check(ServerToClient)
	if !ok {
		return env, false, referenceValidateFrame(ServerToClient, raw)
	}
	if len(errs) > 0 {
		return env, false, errs
	}
	env, read = c.serverEnvelope()
	return env, read, nil
}

// serverEnvelope reads the envelope of a parsed frame the schemas passed.
func (c *checker) serverEnvelope() (env ServerEnvelope, read bool) {
	t := &c.t
	if c.kind(0) != kindObject {
		return env, false
	}
	for m := t.nodes[0].first; m >= 0; m = t.nodes[m].next {
		nd := &t.nodes[m]
		key := t.raw[nd.keyStart:nd.keyEnd]
		if nd.keyEsc || !isASCII(key) {
			return env, false
		}
		var s *string
		switch {
		case jsonscan.FoldEqual(key, "type"):
			s = &env.Type
		case jsonscan.FoldEqual(key, "event_id"):
			s = &env.EventID
		case jsonscan.FoldEqual(key, "seq"):
			switch nd.kind {
			case kindNull:
			case kindNumber:
				v, err := strconv.ParseInt(string(t.raw[nd.start:nd.end]), 10, 64)
				if err != nil {
					return env, false
				}
				env.Seq = v
			default:
				return env, false
			}
			continue
		case jsonscan.FoldEqual(key, "payload"):
			env.Payload = t.span(m)
			continue
		default:
			continue
		}
		switch nd.kind {
		case kindNull:
		case kindString:
			*s = string(t.text(m, false))
		default:
			return env, false
		}
	}
	return env, true
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}
