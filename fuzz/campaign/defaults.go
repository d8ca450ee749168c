package campaign

import (
	"sync"

	"github.com/loomi-lmp/lmpkit/schema"
)

// SchemaValidator checks server frames with package schema (E-1, F-1).
func SchemaValidator(raw []byte) []string {
	errs := schema.ValidateFrame(schema.ServerToClient, raw)
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
