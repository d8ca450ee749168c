package schema

import (
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/loomi-lmp/lmpkit/lmp"
	"go.yaml.in/yaml/v3"
)

type asyncAPI struct {
	AsyncAPI string `yaml:"asyncapi"`
	Channels map[string]struct {
		Address  string                       `yaml:"address"`
		Messages map[string]map[string]string `yaml:"messages"`
	} `yaml:"channels"`
	Operations map[string]struct {
		Action   string              `yaml:"action"`
		Channel  map[string]string   `yaml:"channel"`
		Messages []map[string]string `yaml:"messages"`
	} `yaml:"operations"`
	Components struct {
		Messages map[string]struct {
			Name    string `yaml:"name"`
			Payload struct {
				SchemaFormat string            `yaml:"schemaFormat"`
				Schema       map[string]string `yaml:"schema"`
			} `yaml:"payload"`
		} `yaml:"messages"`
	} `yaml:"components"`
}

func TestAsyncAPI(t *testing.T) {
	raw, err := fs.ReadFile(Files(), "asyncapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc asyncAPI
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("asyncapi.yaml does not parse: %v", err)
	}
	if doc.AsyncAPI != "3.0.0" {
		t.Errorf("asyncapi is %q, want 3.0.0", doc.AsyncAPI)
	}
	ws, ok := doc.Channels["ws"]
	if !ok || ws.Address != lmp.PathWebSocket {
		t.Fatalf("no channel at %s (T-1): %+v", lmp.PathWebSocket, doc.Channels)
	}

	// Every component message points at an embedded schema whose frame
	// type is the message name.
	for key, m := range doc.Components.Messages {
		ref := m.Payload.Schema["$ref"]
		p := path.Clean(ref)
		s, err := fs.ReadFile(Files(), p)
		if err != nil {
			t.Errorf("message %s: payload $ref %q names no embedded schema", key, ref)
			continue
		}
		if dir, _ := path.Split(p); key != strings.TrimSuffix(dir, "/")+"."+m.Name {
			t.Errorf("message %s is named %q but its schema is %s", key, m.Name, p)
		}
		if !strings.Contains(string(s), `"const": "`+m.Name+`"`) {
			t.Errorf("message %s: schema %s does not pin type %q", key, p, m.Name)
		}
	}
	// Every channel message and operation message resolves.
	for key, ref := range ws.Messages {
		name, ok := strings.CutPrefix(ref["$ref"], "#/components/messages/")
		if _, exists := doc.Components.Messages[name]; !ok || !exists || name != key {
			t.Errorf("channel message %s: $ref %q does not resolve", key, ref["$ref"])
		}
	}
	sent := map[string]bool{}
	for op, o := range doc.Operations {
		if o.Channel["$ref"] != "#/channels/ws" {
			t.Errorf("operation %s: channel %v", op, o.Channel)
		}
		for _, m := range o.Messages {
			name, ok := strings.CutPrefix(m["$ref"], "#/channels/ws/messages/")
			if _, exists := ws.Messages[name]; !ok || !exists {
				t.Errorf("operation %s: message $ref %q does not resolve", op, m["$ref"])
			}
			sent[o.Action+" "+name] = true
		}
	}
	// Every frame type has a message, in the right operation.
	for _, typ := range lmp.ServerTypes {
		if !sent["send s2c."+typ] {
			t.Errorf("server type %s has no message sent by the server", typ)
		}
	}
	for _, typ := range lmp.ClientTypes {
		if !sent["receive c2s."+typ] {
			t.Errorf("client type %s has no message received by the server", typ)
		}
	}
}
