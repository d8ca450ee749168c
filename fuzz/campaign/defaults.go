package campaign

import (
	"sync"

	"github.com/loomi-lmp/lmpkit/schema"
)

// SchemaValidator checks server frames with package schema (E-1, F-1).
func SchemaValidator(raw []byte) []string {
	return errorTexts(schema.ValidateFrame(schema.ServerToClient, raw))
}

// readServerFrame is SchemaValidator that also reads, from the same parse,
// the envelope of a frame the schemas pass (schema.ReadServerFrame).
func readServerFrame(raw []byte) (schema.ServerEnvelope, bool, []string) {
	env, read, errs := schema.ReadServerFrame(raw)
	return env, read, errorTexts(errs)
}

func errorTexts(errs []schema.Error) []string {
	if len(errs) == 0 {
		return nil
	}
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.String()
	}
	return out
}

var (
	embeddedOnce    sync.Once
	embeddedSchemas *Schemas
	embeddedErr     error
)

// EmbeddedSchemas returns the client frame schemas embedded in package
// schema.
func EmbeddedSchemas() (*Schemas, error) {
	embeddedOnce.Do(func() { embeddedSchemas, embeddedErr = LoadSchemas(schema.Files()) })
	return embeddedSchemas, embeddedErr
}
